/**
 * Tools a connector lends the model for one turn through the app-server's `dynamicTools`
 * (the Sechroom connector supplies `sechroom_closeout` and `sechroom_lifecycle_signal`).
 * codex calls them with an `item/tool/call` server request; the handler's text goes back
 * to the model.
 */
export interface DynamicToolReply {
  text: string;
  success?: boolean;
}

export interface DynamicTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
  handle(args: unknown): DynamicToolReply | Promise<DynamicToolReply>;
}

export interface DynamicToolSet {
  tools: readonly DynamicTool[];
  /**
   * The tool the model must call before its turn ends. When a turn completes without it,
   * one nudge turn asks for it and is waited for (its own turn id, its own bound).
   */
  closeout?: { tool: string; nudge: string } | undefined;
}

/** The wire form of `thread/start`'s dynamicTools (codex 0.171: DynamicToolSpec, type "function"). */
export function dynamicToolSpecs(tools: readonly DynamicTool[]): Record<string, unknown>[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

export function toolResponse(reply: DynamicToolReply): { success: boolean; contentItems: { type: 'inputText'; text: string }[] } {
  return { success: reply.success ?? true, contentItems: [{ type: 'inputText', text: reply.text }] };
}
