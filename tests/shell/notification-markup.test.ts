import { describe, expect, it } from 'vitest';
import { TrayNotifier, notificationText } from '../../main/electron/tray-notifications';
import { createFakeElectron } from './fake-electron';

const HOSTILE = 'Seat <b>x</b>: <a href="https://evil.example">fix</a> <img src="file:///etc/passwd"> & more';

describe('notification text', () => {
  it('is escaped on Linux, where notification servers render markup, and left alone elsewhere', () => {
    expect(notificationText(HOSTILE, 'linux')).toBe(
      'Seat &lt;b&gt;x&lt;/b&gt;: &lt;a href=&quot;https://evil.example&quot;&gt;fix&lt;/a&gt; &lt;img src=&quot;file:///etc/passwd&quot;&gt; &amp; more',
    );
    expect(notificationText(HOSTILE, 'darwin')).toBe(HOSTILE);
    expect(notificationText(HOSTILE, 'win32')).toBe(HOSTILE);
  });

  it('reaches the Linux notification escaped', () => {
    const fake = createFakeElectron({ appPath: '/app' });
    new TrayNotifier(fake.api, () => {}, 'linux').notify({ title: 'A turn failed', body: HOSTILE, target: 'turns' });
    expect(fake.notifications[0]?.options.body).not.toContain('<');
    expect(fake.notifications[0]?.options.body).toContain('&lt;a href=');
  });
});
