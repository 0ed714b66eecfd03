/**
 * The seam through which usage limits gate claiming: the work manager claims only while
 * `allowsClaim()` says yes, and looks again whenever the admission changes (a reset
 * instant passed, a probe answered, a turn reported a limit).
 */
export interface ClaimAdmission {
  allowsClaim(): boolean;
  onChange(listener: () => void): () => void;
}
