import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore, type ScanSummary } from '../../../functions/core/findings/findings-store.js';
import { commandForms, commandOf, shownInDocs } from '../../helpers/doc-commands.js';
import { driftDraft } from '../../helpers/findings.js';
import { REPO_ROOT, runCli, writeRegistry } from '../../helpers/integration.js';
import { runCollected } from '../../helpers/processes.js';

/**
 * The docs cannot drift from the CLI. Every `driftwatch …` command line shown in README.md and docs/
 * (code blocks and inline code):
 * - names a command that exists and options that command has, read from the built CLI's --help;
 * - runs, when it can run on this machine alone: against a directory prepared here as a newcomer's
 *   would be (driftwatch.yaml, plan.json, a Terraform root in infra/network, findings in the default
 *   store .driftwatch/store), placeholders filled in, through a shell with the built `driftwatch` on
 *   PATH. It must exit with a code that means it worked (0 or 2), without a stack trace or a usage
 *   error;
 * - or is excluded below, with the reason and the test that runs it against moto or a stand-in.
 * A command line shown in the docs that is neither fails this test.
 */

/** Shown lines that run here. Each form of the line (commandForms) is run in a fresh copy of the directory. */
const RUNNABLE: { pattern: RegExp; prepare?: (dir: string) => void }[] = [
  { pattern: /^driftwatch (--version|-V|--help)$/ },
  { pattern: /^driftwatch evaluate-plan / },
  { pattern: /^(COLUMNS=\d+ )?driftwatch findings\b/ },
  { pattern: /^driftwatch suppress / },
  { pattern: /^driftwatch routes\b/ },
  { pattern: /^driftwatch remediate / },
  { pattern: /^driftwatch report / },
  // init writes driftwatch.yaml and refuses to overwrite one: run it where there is none yet.
  { pattern: /^driftwatch init --root /, prepare: (dir) => rmSync(join(dir, 'driftwatch.yaml')) },
];

/** Shown lines that need AWS, a cluster, the network or minutes of Terraform, and where they run. */
const EXCLUDED: { pattern: RegExp; reason: string; runBy: { file: string; contains: string } }[] = [
  {
    pattern: /\bs3:\/\//,
    reason: 'an S3 bucket: needs AWS (moto in the test)',
    runBy: { file: 'test/integration/cli-store-errors.test.ts', contains: "'--store', 's3://" },
  },
  {
    pattern: /^driftwatch evaluate-plan$/,
    reason: 'named in prose, without the plan it needs (the forms with a plan run here)',
    runBy: { file: 'test/unit/cli/cli.test.ts', contains: "runCli(['evaluate-plan'" },
  },
  {
    pattern: /^driftwatch retire /,
    reason: 'needs a store holding the findings of a scope the registry no longer has (made in the test)',
    runBy: { file: 'test/unit/cli/retire-cli.test.ts', contains: 'retireAction(run, scope' },
  },
  {
    pattern: /^driftwatch demo\b/,
    reason: 'provisions examples/estate with terraform in a local moto_server (85 s on 2 cores)',
    runBy: { file: 'test/integration/demo.test.ts', contains: "runCli(['demo'" },
  },
  {
    pattern: /^driftwatch scan\b/,
    reason: 'terraform init and refresh-only plans against the state backend: needs terraform and AWS',
    runBy: { file: 'test/integration/drift-scenarios.test.ts', contains: "runCli(['scan'" },
  },
  {
    pattern: /^driftwatch invoke (<handler>|[a-z])/,
    reason: 'runs a handler that reads S3, state and Terraform: needs AWS',
    runBy: { file: 'test/integration/invoke-handler.test.ts', contains: "runCli(['invoke'" },
  },
  {
    pattern: /^driftwatch invoke( --(workspace|account)\b|$)/,
    reason: 'starts an execution of the deployed state machine: needs a deployed stack',
    runBy: { file: 'test/unit/cli/start-scan.test.ts', contains: "runCli(['invoke', '--workspace'" },
  },
  {
    pattern: /^driftwatch check-backend\b/,
    reason: "reads a state bucket's settings and objects: needs AWS",
    runBy: { file: 'test/integration/backend-checks.test.ts', contains: "'check-backend'," },
  },
  {
    pattern: /^driftwatch locks\b/,
    reason: "lists a state bucket's lock files twice: needs AWS",
    runBy: { file: 'test/integration/backend-locks.test.ts', contains: "'locks'," },
  },
  {
    pattern: /^driftwatch init --bucket\b/,
    reason: 'lists a state bucket: needs AWS',
    runBy: { file: 'test/integration/init.test.ts', contains: "runCli(['init', '--bucket'" },
  },
  {
    pattern: /^driftwatch cluster-diff\b/,
    reason: 'reads a live cluster (Argo CD or a kubeconfig context)',
    runBy: { file: 'test/integration/cluster-diff.test.ts', contains: "'cluster-diff'," },
  },
  {
    pattern: /^driftwatch providers mirror\b/,
    reason: "downloads the registry's providers from registry.terraform.io: needs the network",
    runBy: { file: 'test/unit/cli/providers-mirror.test.ts', contains: "'mirror'" },
  },
];

type Classified =
  | { kind: 'run'; prepare?: (dir: string) => void }
  | { kind: 'excluded'; reason: string }
  | { kind: 'unclassified' };

function classify(form: string): Classified {
  const excluded = EXCLUDED.find(({ pattern }) => pattern.test(form));
  if (excluded) return { kind: 'excluded', reason: excluded.reason };
  const runnable = RUNNABLE.find(({ pattern }) => pattern.test(form));
  return runnable ? { kind: 'run', prepare: runnable.prepare } : { kind: 'unclassified' };
}

// The prepared directory: what the docs' placeholders stand for.
/** The prefix of the prepared store's finding, once it is written. */
const ids = { finding: '' };
const OPTION_VALUES: Record<string, () => string> = {
  '--workspace': () => 'payments-prod',
  '--environment': () => 'prod',
  '--owner': () => 'payments',
  '--registry': () => 'driftwatch.yaml',
  '--store': () => '.driftwatch/store',
  '--kind': () => 'drift',
  '--status': () => 'open',
  '--since': () => '7d',
  '--config': () => 'policies',
  '--reason': () => "'accepted while the migration runs'",
  '--until': () => new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
  '--by': () => 'alice',
};
const POSITIONAL_VALUES: Record<string, () => string> = {
  '<id>': () => ids.finding,
  '<findingId>': () => ids.finding,
  '<plan.json>': () => 'plan.json',
  '<terraform dir>': () => 'infra/network',
};
/** An option value the docs leave to the reader: `<text>`, `…`, or a one-word stand-in (`--owner team`). */
const PLACEHOLDER_VALUE = /^(<[^>]+>|…|[a-zA-Z]|id|team|env|dir|arn|text|date|who)$/;

/** The command line with every placeholder filled in; throws on a placeholder it has no value for. */
function concrete(form: string): string {
  const words = form.split(' ');
  for (let index = 1; index < words.length; index++) {
    const option = words[index - 1]!;
    if (option.startsWith('--') && PLACEHOLDER_VALUE.test(words[index]!) && OPTION_VALUES[option])
      words[index] = OPTION_VALUES[option]();
  }
  const line = words.join(' ');
  return line.replace(/<[^>]+>/g, (placeholder) => {
    const value = POSITIONAL_VALUES[placeholder];
    if (!value) throw new Error(`no value for ${placeholder} in \`${form}\`: add one to POSITIONAL_VALUES`);
    return value();
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let base: string;
let prepared: string;
let pathDir: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'driftwatch-documented-'));
  prepared = join(base, 'prepared');
  mkdirSync(join(prepared, 'infra', 'network'), { recursive: true });
  writeRegistry(join(prepared, 'driftwatch.yaml'), [
    { id: 'payments-prod', dir: 'minimal', owner: 'payments' },
    { id: 'platform-prod', dir: 'minimal' },
  ]);
  writeFileSync(
    join(prepared, 'infra', 'network', 'backend.tf'),
    'terraform {\n  backend "s3" {\n    bucket = "acme-tfstate"\n    key    = "network/terraform.tfstate"\n    region = "eu-west-1"\n  }\n}\n',
  );
  mkdirSync(join(prepared, 'policies'));
  writeFileSync(
    join(prepared, 'plan.json'),
    JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.11.4',
      resource_drift: [
        {
          address: 'aws_s3_bucket.ledger',
          mode: 'managed',
          type: 'aws_s3_bucket',
          name: 'ledger',
          provider_name: 'registry.terraform.io/hashicorp/aws',
          change: {
            actions: ['update'],
            before: { bucket: 'ledger', tags: { Owner: 'payments' } },
            after: { bucket: 'ledger', tags: { Owner: 'finance' } },
            before_sensitive: {},
            after_sensitive: {},
          },
        },
      ],
      errored: false,
      complete: true,
    }),
  );
  // The default store (.driftwatch/store), as a scan leaves it: one finding and the scan's summary.
  const store = createFindingsStore(createFsObjectStore(join(prepared, '.driftwatch', 'store')));
  const at = new Date(Date.now() - 3_600_000);
  const scan = { scanId: 'docs-scan', startedAt: at, now: at };
  const recorded = await store.recordWorkspace(
    scan,
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [driftDraft()],
  );
  await store.writeSummary(scan, {
    scanId: 'docs-scan',
    startedAt: at.toISOString(),
    finishedAt: at.toISOString(),
    workspaces: { total: 2, scanned: 2, failed: 0, busy: 0, skipped: 0 },
    durationsMs: { total: 1000, workspaces: {} },
    findings: { total: 1, bySeverity: { medium: 1 }, byKind: { 'terraform-drift': 1 } },
    noiseRemoved: {},
    failures: [],
  } satisfies ScanSummary);
  const id = JSON.stringify(recorded).match(/"id":"([0-9a-f]{64})"/)?.[1];
  expect(id, 'the prepared store holds a finding').toBeDefined();
  ids.finding = id!.slice(0, 12);
  // `driftwatch` on PATH, as `npm install -g` or `npx` would give it: the built CLI.
  pathDir = join(base, 'bin');
  mkdirSync(pathDir);
  writeFileSync(
    join(pathDir, 'driftwatch'),
    `#!/bin/sh\nexec '${process.execPath}' '${join(REPO_ROOT, 'bin', 'driftwatch.js')}' "$@"\n`,
  );
  chmodSync(join(pathDir, 'driftwatch'), 0o755);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs one command line through bash (pipes and redirections as shown) in a fresh copy of the directory. */
function runShown(line: string, prepare: ((dir: string) => void) | undefined, index: number): Promise<Run> {
  const cwd = join(base, `run-${index}`);
  cpSync(prepared, cwd, { recursive: true });
  prepare?.(cwd);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${pathDir}:${process.env.PATH}`,
    DRIFTWATCH_HASH_SALT: 'documented-commands-salt-01',
    // Nothing here may reach AWS: a command that tries fails at once instead of waiting on a network.
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    AWS_ACCESS_KEY_ID: 'documented',
    AWS_SECRET_ACCESS_KEY: 'documented',
    AWS_REGION: 'eu-west-1',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  delete env.DRIFTWATCH_STORE;
  return runCollected('bash', ['-o', 'pipefail', '-c', line], { cwd, env });
}

const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;
const USAGE_ERROR = /unknown (option|command)|error: (missing|option|too many)/i;

describe('commands shown in the docs', () => {
  it('exist, with the options their --help lists', async () => {
    const shown = shownInDocs();
    // The docs show the commands a newcomer needs; if this drops, the extraction broke.
    expect(shown.length).toBeGreaterThan(40);

    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const commands = new Set([...top.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((match) => match[1]!));
    const topOptions = optionsIn(top.stdout);
    const helps = new Map<string, Promise<Set<string>>>();
    const helpOf = (path: string[]) => {
      const key = path.join(' ');
      if (!helps.has(key))
        helps.set(
          key,
          runCli([...path, '--help']).then((run) => {
            expect(run.code, `driftwatch ${key} --help: ${run.stderr}`).toBe(0);
            return optionsIn(run.stdout);
          }),
        );
      return helps.get(key)!;
    };

    const subcommands = new Map<string, Promise<boolean>>();
    const problems: string[] = [];
    for (const { file, line } of shown) {
      const [command, second] = commandOf(line)!;
      if (command!.startsWith('-')) {
        if (!topOptions.has(command!) && command !== '-V')
          problems.push(`${file}: \`${line}\`: no option ${command}`);
        continue;
      }
      if (!commands.has(command!)) {
        problems.push(`${file}: \`${line}\`: no command '${command}'`);
        continue;
      }
      // `findings show`, `providers mirror`: a subcommand when its own --help answers.
      let path = [command!];
      if (second) {
        const key = `${command} ${second}`;
        if (!subcommands.has(key))
          subcommands.set(
            key,
            runCli([command!, second, '--help']).then(
              (sub) => sub.code === 0 && sub.stdout.includes(`driftwatch ${key}`),
            ),
          );
        if (await subcommands.get(key)) path = [command!, second];
      }
      const known = await helpOf(path);
      const parent = path.length > 1 ? await helpOf([command!]) : new Set<string>();
      for (const option of line.matchAll(/(?:^|[\s[(|])(--[a-z][a-z0-9-]*)/g)) {
        const name = option[1]!;
        if (['--help', '--debug', '--version'].includes(name)) continue;
        if (!known.has(name) && !parent.has(name))
          problems.push(`${file}: \`${line}\`: 'driftwatch ${path.join(' ')}' has no option ${name}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000); // one --help per command, in sequence: seconds, more on a loaded machine

  it('run: each runnable form exits 0 or 2 without a stack trace; every other one is excluded with a reason', async () => {
    const forms = new Map<string, string[]>(); // form → where it is shown
    for (const { file, line } of shownInDocs())
      for (const form of commandForms(line))
        forms.set(form, [...(forms.get(form) ?? []), `${file}: \`${line}\``]);

    const problems: string[] = [];
    const runs: { form: string; line: string; prepare?: (dir: string) => void }[] = [];
    const excludedCount = new Map<string, number>();
    for (const [form, where] of forms) {
      const classified = classify(form);
      if (classified.kind === 'unclassified')
        problems.push(
          `${where[0]}: \`${form}\` is neither runnable here (RUNNABLE) nor excluded with a reason (EXCLUDED)`,
        );
      else if (classified.kind === 'excluded')
        excludedCount.set(classified.reason, (excludedCount.get(classified.reason) ?? 0) + 1);
      else {
        try {
          runs.push({ form, line: concrete(form), prepare: classified.prepare });
        } catch (error) {
          problems.push(`${where[0]}: ${(error as Error).message}`);
        }
      }
    }
    // Most of what the docs show runs here; the rest needs AWS, a cluster or the network.
    expect(runs.length).toBeGreaterThan(12);

    // Two at a time: each run is one short node process.
    const results: Run[] = new Array(runs.length);
    let next = 0;
    const worker = async () => {
      while (next < runs.length) {
        const index = next++;
        results[index] = await runShown(runs[index]!.line, runs[index]!.prepare, index);
      }
    };
    await Promise.all([worker(), worker()]);

    runs.forEach(({ form, line }, index) => {
      const run = results[index]!;
      const where = forms.get(form)![0];
      const said = `${where}: \`${line}\` exited ${run.code}: ${run.stderr.trim().split('\n').slice(0, 3).join(' / ')}`;
      if (run.code !== 0 && run.code !== 2) problems.push(said);
      else if (STACK_TRACE.test(run.stderr) || USAGE_ERROR.test(run.stderr)) problems.push(said);
    });
    expect(problems).toEqual([]);

    // What ran did something: the finding is listed, the plan evaluated, the starter registry written.
    const output = (pattern: RegExp) => runs.findIndex(({ line }) => pattern.test(line));
    const listing = output(/^driftwatch findings$/);
    expect(results[listing]?.stdout).toContain(ids.finding);
    expect(results[listing]?.code).toBe(2);
    const evaluated = output(/^driftwatch evaluate-plan plan\.json$/);
    expect(results[evaluated]?.stdout).toContain('aws_s3_bucket.ledger');
    const init = runs.findIndex(({ line }) => line.startsWith('driftwatch init --root infra/network'));
    expect(existsSync(join(base, `run-${init}`, 'driftwatch.yaml'))).toBe(true);
  }, 120_000);

  it('exclusions name a test that runs the command against moto or a stand-in', () => {
    for (const { runBy, pattern } of EXCLUDED) {
      const text = readFileSync(join(REPO_ROOT, runBy.file), 'utf8');
      expect(text, `${pattern}: ${runBy.file}`).toContain(runBy.contains);
    }
  });

  it('forms of a synopsis, and what is neither runnable nor excluded', () => {
    expect(
      commandForms(
        'driftwatch init (--bucket B [--region R] | --root <terraform dir>) [--out driftwatch.yaml]',
      ),
    ).toEqual(['driftwatch init --bucket B', 'driftwatch init --root <terraform dir>']);
    expect(
      commandForms('driftwatch invoke --workspace id | --account id [--state-machine arn]   re-scan'),
    ).toEqual(['driftwatch invoke --workspace id', 'driftwatch invoke --account id']);
    expect(commandForms('npx driftwatch findings show <id|prefix> [--store s]    # one finding')).toEqual([
      'driftwatch findings show <id>',
    ]);
    expect(commandForms('driftwatch findings --since 7d|2026-11-01 | head')).toEqual([
      'driftwatch findings --since 7d | head',
    ]);
    expect(concrete('driftwatch findings --owner team --format json')).toBe(
      'driftwatch findings --owner payments --format json',
    );
    expect(() => concrete('driftwatch findings show <something new>')).toThrow(
      /no value for <something new>/,
    );
    expect(classify('driftwatch frobnicate --now').kind).toBe('unclassified');
    expect(classify('driftwatch findings --store s3://bucket').kind).toBe('excluded');
  });
});

/** The options a --help text lists (`-s, --store <dir>` → --store; `--no-x` also names --x). */
function optionsIn(help: string): Set<string> {
  return new Set([...help.matchAll(/(?:^|[\s,])(--[a-z][a-z0-9-]*)/gm)].map((match) => match[1]!));
}
