import { useState } from 'react';
import { useHostStore } from '../../store';
import { ImportForm } from './import-form';
import { PairedCard } from './paired-card';
import { PairingFlow } from './pairing-flow';
import './pairing.css';

/** Unpaired: pair (or import); paired: who and where, the secret's home, and Unpair. */
export function PairingView() {
  const loaded = useHostStore((s) => s.runner.snapshot !== null);
  const paired = useHostStore((s) => s.runner.snapshot?.identity != null);
  // Kept here, above the switch to the paired card, so what the import said stays on screen.
  const [imported, setImported] = useState<{ runnerId: string; notes: string[] } | null>(null);
  return (
    <div className="view pairing" data-testid="view-pairing">
      {!loaded ? (
        <section className="card">
          <p className="empty">Waiting for the host…</p>
        </section>
      ) : paired ? (
        <PairedCard imported={imported} />
      ) : (
        <div className="pairing-columns">
          <PairingFlow />
          <ImportForm onImported={setImported} />
        </div>
      )}
    </div>
  );
}
