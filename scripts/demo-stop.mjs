// How `npm run demo` stops (its Ctrl-C), in one place the tests can drive with real processes.
//
// The app goes first and is given the time it asks for: the headless host and the desktop
// app drain their running turns on the first SIGINT (up to their drain limit, 5 min by
// default) and deliver the results, which needs the control plane, so the emulator stops
// only after the app exited. A second Ctrl-C is forwarded as a second SIGINT (the host's
// "stop now": it cancels the running turns and reports them). A third kills everything.
// Nothing is SIGKILLed on a timer: a drain that promises 5 minutes gets them.

/** Resolves once `child` exited (at once when it already has). */
export function exitOf(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

const alive = (child) => child.exitCode === null && child.signalCode === null;

export class DemoStopper {
  /**
   * @param {import('node:child_process').ChildProcess} app the app (host or desktop), or null when none was started
   * @param {import('node:child_process').ChildProcess[]} others stopped with SIGTERM after the app exited
   * @param {(line: string) => void} say
   */
  constructor(app, others, say = () => undefined) {
    this.app = app;
    this.others = others;
    this.say = say;
    this.interrupts = 0;
    /** @type {Promise<void> | null} */
    this.done = null;
  }

  /** One Ctrl-C. Returns the promise of the whole stop (the same one every time). */
  interrupt() {
    this.interrupts += 1;
    if (this.interrupts === 1) {
      this.say('Stopping: the runner finishes its running turns first (up to its drain limit). Ctrl-C again to cancel them now.');
      this.done = this.stop();
    } else if (this.interrupts === 2) {
      this.say('Stopping now: the running turns are canceled and reported. Ctrl-C again to kill everything.');
      if (this.app && alive(this.app)) this.app.kill('SIGINT');
    } else {
      for (const child of [this.app, ...this.others]) if (child && alive(child)) child.kill('SIGKILL');
    }
    return this.done;
  }

  async stop() {
    if (this.app) {
      if (alive(this.app)) this.app.kill('SIGINT');
      await exitOf(this.app);
    }
    await Promise.all(
      this.others.map((child) => {
        if (alive(child)) child.kill('SIGTERM');
        return exitOf(child);
      }),
    );
  }
}
