import { SAMPLE_WINDOW, type CapacitySample } from '../../../shared/telemetry';

export interface TelemetrySlice {
  /** Oldest first, the last hour at most. */
  samples: CapacitySample[];
}

export const initialTelemetry: TelemetrySlice = { samples: [] };

export function telemetryFromHistory(samples: CapacitySample[]): TelemetrySlice {
  return { samples: samples.slice(-SAMPLE_WINDOW) };
}

/** Appends a reading; one the window already has (a race with telemetry:history) is ignored. */
export function addSample(slice: TelemetrySlice, sample: CapacitySample): TelemetrySlice {
  const last = slice.samples.at(-1);
  if (last && sample.t <= last.t) return slice;
  const samples = slice.samples.length >= SAMPLE_WINDOW ? slice.samples.slice(1 - SAMPLE_WINDOW) : slice.samples.slice();
  samples.push(sample);
  return { samples };
}
