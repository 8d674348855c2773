/**
 * A small Amazon States Language interpreter for the subset the scan state machine uses, to run its
 * synthesized definition locally with Task states stubbed. aws-local-stepfunctions (3.0.0) was the
 * first choice, but it has no ItemReader (a Distributed Map reading its items from S3, which every
 * Map here does) and no tolerated-failure semantics for Distributed Maps.
 *
 * What it does: Task (any Resource; the stub is chosen by state name), Choice (`Variable` with
 * `StringEquals`, `Default`), Wait (records the TimestampPath, does not wait), Map in both modes
 * (INLINE: ItemsPath, ItemSelector, MaxConcurrencyPath recorded; DISTRIBUTED: ItemReader through a
 * stubbed S3 getObject of a JSON array, ToleratedFailurePercentage, a child execution per item),
 * Catch (States.ALL or exact error names, ResultPath), Parameters / ItemSelector with `.$` paths
 * (`$`, `$.a.b`, `$$.Map.Item.Value.a`) and the `States.JsonToString($…)` intrinsic, ResultPath
 * (null discards, `$.a.b` sets), OutputPath (a path, or null for `{}`; on a state that did not
 * fail), Next/End.
 *
 * What it does not: Retry (a failed task goes straight to its Catch: retries are asserted on the
 * definition instead), timeouts, ResultSelector, InputPath, other Choice operators, other
 * intrinsics, ItemBatcher, ResultWriter (results are discarded here, as ResultPath null does), real
 * concurrency (items run one after another; MaxConcurrency is only recorded).
 */

export interface AslError {
  Error: string;
  Cause: string;
}

export class StatesError extends Error {
  readonly error: string;
  override readonly cause: string;

  constructor(error: string, cause: string) {
    super(`${error}: ${cause}`);
    this.name = 'StatesError';
    this.error = error;
    this.cause = cause;
  }
}

export type TaskStub = (input: unknown, state: string) => Promise<unknown> | unknown;

export interface Interpreter {
  /** Stubs by Task state name; a Task without a stub fails the test. */
  tasks: Record<string, TaskStub>;
  /** S3 getObject for ItemReader (bucket from the definition, key from the state). */
  getObject: (bucket: string, key: string) => unknown;
}

export interface TraceEntry {
  state: string;
  input: unknown;
  /** Set for Maps: the concurrency they were given (MaxConcurrency or MaxConcurrencyPath's value). */
  maxConcurrency?: number;
  /** Set for Maps: what their iterations returned, before ResultPath (Step Functions limits its size). */
  result?: unknown[];
}

interface StateDef {
  Type: string;
  Next?: string;
  End?: boolean;
  Resource?: string;
  Parameters?: unknown;
  ResultPath?: string | null;
  OutputPath?: string | null;
  Catch?: Array<{ ErrorEquals: string[]; Next: string; ResultPath?: string | null }>;
  Choices?: Array<{ Variable: string; StringEquals?: string; Next: string }>;
  Default?: string;
  TimestampPath?: string;
  ItemsPath?: string;
  ItemSelector?: unknown;
  ItemReader?: { Parameters: Record<string, unknown> };
  ItemProcessor?: { ProcessorConfig?: { Mode?: string }; StartAt: string; States: Record<string, StateDef> };
  MaxConcurrency?: number;
  MaxConcurrencyPath?: string;
  ToleratedFailurePercentage?: number;
}

interface Machine {
  StartAt: string;
  States: Record<string, StateDef>;
}

export async function execute(
  machine: Machine,
  input: unknown,
  interpreter: Interpreter,
): Promise<{ output: unknown; trace: TraceEntry[] }> {
  const trace: TraceEntry[] = [];
  const output = await run(machine, input, interpreter, trace, {});
  return { output, trace };
}

async function run(
  machine: Machine,
  input: unknown,
  interpreter: Interpreter,
  trace: TraceEntry[],
  context: Record<string, unknown>,
): Promise<unknown> {
  let name: string | undefined = machine.StartAt;
  let data = input;
  while (name !== undefined) {
    const state: StateDef | undefined = machine.States[name];
    if (!state) throw new Error(`no state ${name}`);
    const entry: TraceEntry = { state: name, input: structuredClone(data) };
    trace.push(entry);
    let next: string | undefined;
    try {
      switch (state.Type) {
        case 'Task': {
          const stub = interpreter.tasks[name];
          if (!stub) throw new Error(`no stub for Task ${name}`);
          const payload = state.Parameters === undefined ? data : resolve(state.Parameters, data, context);
          let result: unknown;
          try {
            result = await stub(structuredClone(payload), name);
          } catch (error) {
            if (error instanceof StatesError) throw error;
            throw new StatesError((error as Error).name || 'Error', (error as Error).message);
          }
          data = outputOf(applyResultPath(data, result, state.ResultPath), state, context);
          next = state.Next;
          break;
        }
        case 'Choice': {
          const choice = state.Choices?.find(
            (candidate) =>
              candidate.StringEquals !== undefined &&
              path(data, candidate.Variable, context) === candidate.StringEquals,
          );
          next = choice?.Next ?? state.Default;
          if (!next) throw new StatesError('States.NoChoiceMatched', `no choice of ${name} matched`);
          break;
        }
        case 'Wait':
          next = state.Next;
          break;
        case 'Map': {
          const result = await runMap(name, state, data, interpreter, trace, context, entry);
          entry.result = result;
          data = outputOf(applyResultPath(data, result, state.ResultPath), state, context);
          next = state.Next;
          break;
        }
        default:
          throw new Error(`state type ${state.Type} is not in this interpreter's subset`);
      }
    } catch (error) {
      if (!(error instanceof StatesError)) throw error;
      const handler = state.Catch?.find((rule) =>
        rule.ErrorEquals.some((name) => name === 'States.ALL' || name === error.error),
      );
      if (!handler) throw error;
      data = applyResultPath(data, { Error: error.error, Cause: error.cause }, handler.ResultPath);
      next = handler.Next;
    }
    if (state.End && next === undefined) return data;
    name = next;
  }
  return data;
}

async function runMap(
  name: string,
  state: StateDef,
  data: unknown,
  interpreter: Interpreter,
  trace: TraceEntry[],
  context: Record<string, unknown>,
  entry: TraceEntry,
): Promise<unknown[]> {
  const processor = state.ItemProcessor;
  if (!processor) throw new Error(`Map ${name} has no ItemProcessor`);
  const distributed = processor.ProcessorConfig?.Mode === 'DISTRIBUTED';
  let items: unknown[];
  if (state.ItemReader) {
    const parameters = resolve(state.ItemReader.Parameters, data, context) as { Bucket: string; Key: string };
    items = interpreter.getObject(parameters.Bucket, parameters.Key) as unknown[];
  } else {
    items = path(data, state.ItemsPath ?? '$', context) as unknown[];
  }
  if (!Array.isArray(items)) throw new StatesError('States.Runtime', `Map ${name}: items are not an array`);
  entry.maxConcurrency = state.MaxConcurrencyPath
    ? (path(data, state.MaxConcurrencyPath, context) as number)
    : state.MaxConcurrency;
  const results: unknown[] = [];
  let failed = 0;
  let lastError: StatesError | undefined;
  for (const [index, value] of items.entries()) {
    const itemContext = { Map: { Item: { Index: index, Value: value } } };
    const itemInput =
      state.ItemSelector === undefined ? value : resolve(state.ItemSelector, data, itemContext);
    try {
      results.push(await run(processor as Machine, itemInput, interpreter, trace, itemContext));
    } catch (error) {
      if (!(error instanceof StatesError)) throw error;
      // An inline Map fails with its first failed item; a Distributed Map counts child failures.
      if (!distributed) throw error;
      failed++;
      lastError = error;
      results.push(undefined);
    }
  }
  const tolerated = state.ToleratedFailurePercentage ?? 0;
  if (distributed && failed > 0 && (failed / items.length) * 100 > tolerated) {
    throw new StatesError(
      'States.ExceedToleratedFailureThreshold',
      `${failed} of ${items.length} child executions failed (tolerated ${tolerated}%); last: ${lastError?.message}`,
    );
  }
  return results;
}

/** Parameters / ItemSelector: keys ending in `.$` take a path or an intrinsic. */
function resolve(template: unknown, data: unknown, context: Record<string, unknown>): unknown {
  if (Array.isArray(template)) return template.map((item) => resolve(item, data, context));
  if (template === null || typeof template !== 'object') return template;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$')) result[key.slice(0, -2)] = evaluate(value as string, data, context);
    else result[key] = resolve(value, data, context);
  }
  return result;
}

function evaluate(expression: string, data: unknown, context: Record<string, unknown>): unknown {
  const intrinsic = /^States\.JsonToString\((.+)\)$/.exec(expression);
  if (intrinsic) return JSON.stringify(path(data, intrinsic[1]!.trim(), context));
  if (expression.startsWith('States.'))
    throw new Error(`intrinsic ${expression} is not in this interpreter's subset`);
  return path(data, expression, context);
}

function path(data: unknown, expression: string, context: Record<string, unknown>): unknown {
  const [root, rest] = expression.startsWith('$$')
    ? [context, expression.slice(2)]
    : [data, expression.slice(1)];
  let node: unknown = root;
  for (const part of rest.split('.').filter(Boolean)) {
    if (node === null || typeof node !== 'object' || !(part in node))
      throw new StatesError('States.Runtime', `the JSONPath ${expression} could not be found in the input`);
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function outputOf(data: unknown, state: StateDef, context: Record<string, unknown>): unknown {
  if (state.OutputPath === undefined) return data;
  return state.OutputPath === null ? {} : path(data, state.OutputPath, context);
}

function applyResultPath(data: unknown, result: unknown, resultPath: string | null | undefined): unknown {
  if (resultPath === null) return data;
  if (resultPath === undefined || resultPath === '$') return result;
  const parts = resultPath.slice(2).split('.');
  const copy = structuredClone(data) as Record<string, unknown>;
  let node = copy;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = result;
  return copy;
}
