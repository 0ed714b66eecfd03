// The lending terms' idle time and power supply as Electron reads them (powerMonitor): the
// session's idle time on every OS, and battery or mains; the charge, which powerMonitor does
// not give, from the headless source (/sys, pmset) where the OS has one.
import type { LendingSources, PowerSource } from '../core/lending/sources';
import type { PowerMonitorApi } from './electron-api';

export function electronLendingSources(monitor: PowerMonitorApi, charge: PowerSource): Pick<LendingSources, 'idle' | 'power'> {
  return {
    idle: {
      idleSeconds: () => {
        const seconds = monitor.getSystemIdleTime();
        return Promise.resolve(Number.isFinite(seconds) && seconds >= 0 ? seconds : null);
      },
    },
    power: {
      read: async () => {
        const onBattery = monitor.isOnBatteryPower();
        const percent = (await charge.read().catch(() => null))?.percent ?? null;
        return { onBattery, percent };
      },
    },
  };
}
