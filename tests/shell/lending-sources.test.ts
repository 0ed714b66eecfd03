import { describe, expect, it } from 'vitest';
import { electronLendingSources } from '../../main/electron/lending-sources';

describe("Electron's lending sources", () => {
  it("read powerMonitor's idle time and battery, and the charge from the headless source", async () => {
    const monitor = { idle: 42, battery: true, getSystemIdleTime: () => monitor.idle, isOnBatteryPower: () => monitor.battery };
    const sources = electronLendingSources(monitor, { read: () => Promise.resolve({ onBattery: true, percent: 61 }) });
    expect(await sources.idle.idleSeconds()).toBe(42);
    expect(await sources.power.read()).toEqual({ onBattery: true, percent: 61 });
    monitor.battery = false;
    expect(await sources.power.read()).toEqual({ onBattery: false, percent: 61 });
  });

  it('say the charge is unknown when the OS gives none, and idle not available for a nonsense answer', async () => {
    const sources = electronLendingSources(
      { getSystemIdleTime: () => Number.NaN, isOnBatteryPower: () => true },
      { read: () => Promise.reject(new Error('no pmset')) },
    );
    expect(await sources.power.read()).toEqual({ onBattery: true, percent: null });
    expect(await sources.idle.idleSeconds()).toBeNull();
  });
});
