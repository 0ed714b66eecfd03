import type { RunTelemetryEvent, Verdict } from '../../../shared/protocol/sechroom';
import { iso, type EmulatorContext } from '../../context';
import { parseJson } from '../../db/database';
import type { WorkStore } from './work-store';

interface TelemetryRow {
  seq: number;
  tenant_id: string;
  decomposition_id: string;
  task_id: string;
  kind: RunTelemetryEvent['kind'];
  body: string;
  received_at: number;
}

interface Meters {
  taskId: string;
  tokensIn: number | null;
  tokensOut: number | null;
  contextUsed: number | null;
  contextWindow: number | null;
  modelId: string | null;
  verdict: Verdict | null;
  lastKind: RunTelemetryEvent['kind'];
  eventCount: number;
  lastEventAt: string;
}

const METERS = ['tokensIn', 'tokensOut', 'contextUsed', 'contextWindow'] as const;

/** Run telemetry per work plan: the executor's and the CLI's event shapes, per-task meters (latest non-null wins) and the timeline. */
export class TelemetryService {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly work: WorkStore,
  ) {}

  ingest(tenantId: string, decompositionId: string, events: RunTelemetryEvent[]): { eventCount: number; accepted: number } {
    this.work.requireDecomposition(decompositionId, tenantId);
    const insert = this.ctx.db.prepare('INSERT INTO sr_telemetry (tenant_id, decomposition_id, task_id, kind, body, received_at) VALUES (?, ?, ?, ?, ?, ?)');
    const now = this.ctx.now();
    this.ctx.db.transaction(() => {
      for (const event of events) insert.run(tenantId, decompositionId, event.taskId, event.kind, JSON.stringify(event), now);
    })();
    const eventCount = this.count(decompositionId);
    this.ctx.events.emit('sechroom.telemetry.ingested', { decomposition_id: decompositionId, accepted: events.length, event_count: eventCount });
    return { eventCount, accepted: events.length };
  }

  read(tenantId: string, decompositionId: string) {
    this.work.requireDecomposition(decompositionId, tenantId);
    const rows = this.rows(decompositionId);
    if (!rows.length) return { decompositionId, hasTelemetry: false as const };
    const tasks = new Map<string, Meters>();
    const timeline = rows.map((row) => {
      const event = parseJson<RunTelemetryEvent>(row.body, { taskId: row.task_id, kind: row.kind });
      const at = iso(row.received_at);
      const m = tasks.get(row.task_id) ?? {
        taskId: row.task_id,
        tokensIn: null,
        tokensOut: null,
        contextUsed: null,
        contextWindow: null,
        modelId: null,
        verdict: null,
        lastKind: row.kind,
        eventCount: 0,
        lastEventAt: at,
      };
      for (const key of METERS) if (typeof event[key] === 'number') m[key] = event[key];
      if (event.modelId) m.modelId = event.modelId;
      if (event.verdict) m.verdict = event.verdict;
      m.lastKind = row.kind;
      m.eventCount += 1;
      m.lastEventAt = at;
      tasks.set(row.task_id, m);
      return { seq: row.seq, at, ...event };
    });
    return { decompositionId, hasTelemetry: true as const, eventCount: rows.length, tasks: [...tasks.values()], timeline };
  }

  /** Every event (admin), oldest first. */
  list(filter: { decomposition_id?: string } = {}) {
    const rows = this.ctx.db
      .prepare('SELECT * FROM sr_telemetry WHERE ? IS NULL OR decomposition_id = ? ORDER BY seq')
      .all(filter.decomposition_id ?? null, filter.decomposition_id ?? null) as TelemetryRow[];
    return rows.map((r) => ({
      seq: r.seq,
      decompositionId: r.decomposition_id,
      at: iso(r.received_at),
      ...parseJson<RunTelemetryEvent>(r.body, { taskId: r.task_id, kind: r.kind }),
    }));
  }

  private rows(decompositionId: string): TelemetryRow[] {
    return this.ctx.db.prepare('SELECT * FROM sr_telemetry WHERE decomposition_id = ? ORDER BY seq').all(decompositionId) as TelemetryRow[];
  }

  private count(decompositionId: string): number {
    return (this.ctx.db.prepare('SELECT COUNT(*) AS n FROM sr_telemetry WHERE decomposition_id = ?').get(decompositionId) as { n: number }).n;
  }
}
