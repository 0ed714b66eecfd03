import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import type { TranscriptLine } from '../../../../shared/transcript';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { withTranscriptView, type TurnTranscript } from '../../store/transcripts-slice';
import { formatCount } from '../format';

const LINE_HEIGHT = 18;
const EMPTY: TurnTranscript = { lines: [], earlier: 0 };

/**
 * What the runtime is doing, line by line, as it streams (redacted by the host): the
 * model's text and reasoning, the commands it runs (monospace, with their exit codes),
 * the files it changes. Virtualized, so a turn that printed thousands of lines costs the
 * DOM only those in view; it follows new lines while the reader is at the bottom.
 */
export function TurnTranscriptBlock({ turnId, live }: { turnId: string; live: boolean }) {
  const streamed = useHostStore((s) => s.transcripts[turnId]);
  const [kept, setKept] = useState<{ id: string; transcript: TurnTranscript | null } | null>(null);
  useEffect(() => {
    let current = true;
    void getBridge()
      .invoke('turns:transcript', { id: turnId })
      .then((result) => {
        if (!current) return;
        const view = result.ok ? result.value : null;
        setKept({ id: turnId, transcript: view ? { lines: view.lines, earlier: view.earlier } : null });
        // A running turn's lines from before this window connected join those streaming in.
        if (view && useHostStore.getState().turns.active.some((t) => t.id === turnId)) {
          useHostStore.setState((state) => ({ transcripts: withTranscriptView(state.transcripts, view) }));
        }
      });
    return () => {
      current = false;
    };
  }, [turnId, live]);
  const fetched = kept?.id === turnId ? kept.transcript : null;
  const transcript = (live ? streamed : null) ?? fetched ?? EMPTY;
  const loading = kept?.id !== turnId;
  return (
    <div className="detail-block grow-block transcript-block">
      <h3 id="transcript-title">
        Transcript{live ? ' (live, redacted)' : ' (redacted)'}
        {transcript.earlier > 0 ? <span className="transcript-earlier"> · {formatCount(transcript.earlier)} earlier lines kept on disk</span> : null}
      </h3>
      {transcript.lines.length === 0 ? (
        <p className="transcript-empty" data-testid="transcript-empty">
          {loading ? 'Loading…' : live ? 'Nothing streamed yet.' : 'No transcript was kept for this turn.'}
        </p>
      ) : (
        <TranscriptLines lines={transcript.lines} />
      )}
    </div>
  );
}

function TranscriptLines({ lines }: { lines: readonly TranscriptLine[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // oxlint-disable-next-line react/incompatible-library -- only says the React Compiler would skip this component; we do not use the compiler.
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => LINE_HEIGHT,
    overscan: 12,
    getItemKey: (index) => lines[index]?.n ?? index,
  });
  useEffect(() => {
    if (pinned.current && lines.length > 0) virtualizer.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [lines, virtualizer]);
  return (
    <div
      ref={scrollRef}
      className="transcript vlist"
      tabIndex={0}
      role="log"
      aria-labelledby="transcript-title"
      data-testid="transcript"
      onScroll={(event) => {
        const el = event.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      <div className="vlist-sizer" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const line = lines[item.index]!;
          return (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className={`transcript-line transcript-${line.kind}${line.open ? ' transcript-open' : ''}`}
              data-testid="transcript-line"
              data-kind={line.kind}
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {line.exitCode !== undefined ? <ExitCode code={line.exitCode} /> : line.text}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function ExitCode({ code }: { code: number | null }) {
  if (code === null) return <span className="transcript-exit">ended</span>;
  return <span className={code === 0 ? 'transcript-exit transcript-exit-ok' : 'transcript-exit transcript-exit-failed'}>exit {code}</span>;
}
