import type { CapacitySample } from '../../../../shared/telemetry';
import { TelemetryChart, type ChartSeries } from './telemetry-chart';

const memPercent = (s: CapacitySample) => (s.memTotalBytes > 0 ? ((s.memTotalBytes - s.memFreeBytes) / s.memTotalBytes) * 100 : 0);
const minutes = (count: number) => Math.max(1, Math.round((count * 5) / 60));

// Module constants, so the charts' props never change identity.
const CPU: ChartSeries[] = [{ label: 'CPU', value: (s) => s.cpuPercent, color: '--chart-1', fill: '--chart-1-fill' }];
const MEMORY: ChartSeries[] = [{ label: 'Memory', value: memPercent, color: '--chart-2', fill: '--chart-2-fill' }];
const SESSIONS: ChartSeries[] = [
  { label: 'Limit', value: (s) => s.maxSessions, color: '--muted', stepped: true, dashed: true },
  { label: 'In use', value: (s) => s.activeSessions, color: '--chart-3', fill: '--chart-3-fill', stepped: true },
];

/** Three small live charts: CPU, memory, sessions in use against the limit. */
export function CapacityCharts() {
  return (
    <div className="charts">
      <TelemetryChart
        title="CPU"
        series={CPU}
        max={100}
        unit="%"
        testId="chart-cpu"
        describe={(s, n) => (s ? `CPU over the last ${minutes(n)} min; now ${Math.round(s.cpuPercent)} %` : 'CPU: no readings yet')}
      />
      <TelemetryChart
        title="Memory"
        series={MEMORY}
        max={100}
        unit="%"
        testId="chart-memory"
        describe={(s, n) => (s ? `Memory in use over the last ${minutes(n)} min; now ${Math.round(memPercent(s))} %` : 'Memory: no readings yet')}
      />
      <TelemetryChart
        title="Sessions"
        series={SESSIONS}
        max={null}
        unit=""
        testId="chart-sessions"
        describe={(s, n) => (s ? `Sessions over the last ${minutes(n)} min; now ${s.activeSessions} of ${s.maxSessions}` : 'Sessions: no readings yet')}
      />
    </div>
  );
}
