import { lazy, Suspense } from 'react';
import { useHostStore } from '../../store';
import { navigate } from '../use-route';
import { Figures } from './figures';
import { HostPanel } from './host-panel';
import { RuntimesCard } from './runtimes-card';
import { UsageCard } from './usage-card';
import './dashboard.css';

// uPlot and the charts load after the first paint: the figures and cards show data first.
const CapacityCharts = lazy(async () => ({ default: (await import('./charts')).CapacityCharts }));

/** Numbers people act on first, then small live charts, then what this machine offers. */
export function DashboardView() {
  return (
    <div className="view dashboard" data-testid="view-dashboard">
      <PairingCallout />
      <Figures />
      <Suspense fallback={<div className="charts" />}>
        <CapacityCharts />
      </Suspense>
      <UsageCard />
      <div className="row-2">
        <RuntimesCard />
        <HostPanel />
      </div>
    </div>
  );
}

/** An unpaired machine does nothing for the factory: say so, and where to fix it. */
function PairingCallout() {
  const state = useHostStore((s) => s.runner.status?.state);
  if (state !== 'unpaired' && state !== 'pairing' && state !== 'revoked') return null;
  const text =
    state === 'pairing'
      ? 'Pairing is in progress: approve the code on the control plane.'
      : state === 'revoked'
        ? 'The control plane revoked this runner. Pair again to keep working.'
        : 'This machine is not paired yet, so it takes no work.';
  return (
    <div className="callout" data-testid="pairing-callout">
      <span>{text}</span>
      <button type="button" className="button button-primary" onClick={() => navigate('pairing')}>
        {state === 'pairing' ? 'Show the code' : 'Pair this machine'}
      </button>
    </div>
  );
}
