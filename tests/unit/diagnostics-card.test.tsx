// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { setBridge } from '../../renderer/src/bridge/instance';
import { DiagnosticsCard } from '../../renderer/src/views/settings/diagnostics-card';
import { fakeBridge } from '../helpers/fake-bridge';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Download diagnostics (browser window)', () => {
  it('downloads the host’s zip under its file name', async () => {
    const zip = zipSync({ 'README.txt': strToU8('Runner Tray diagnostics') });
    const { bridge, calls } = fakeBridge(() => ({
      fileName: 'runner-tray-diagnostics-2026-12-07T16-40-00Z.zip',
      zipBase64: Buffer.from(zip).toString('base64'),
      savedTo: null,
    }));
    setBridge(bridge);
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return 'blob:diagnostics';
    });
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    render(<DiagnosticsCard />);
    fireEvent.click(screen.getByTestId('save-diagnostics'));
    await waitFor(() => expect(screen.getByTestId('diagnostics-status').textContent).toContain('Downloaded'));
    expect(calls).toEqual([{ name: 'app:diagnostics', input: undefined }]);
    expect(clicked[0]?.download).toBe('runner-tray-diagnostics-2026-12-07T16-40-00Z.zip');
    expect(blobs[0]?.type).toBe('application/zip');
    const bytes = new Uint8Array(await blobs[0]!.arrayBuffer());
    expect(Object.keys(unzipSync(bytes))).toEqual(['README.txt']);
  });
});
