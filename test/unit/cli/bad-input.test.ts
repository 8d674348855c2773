import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../../functions/core/findings/model.js';
import { type CliRun, REPO_ROOT } from '../../helpers/integration.js';

/**
 * Bad input, through the real binary: one line on stderr with the cause and the fix, the documented
 * exit code (1 runtime, 64 usage), never a stack trace without --debug, never "No findings.".
 * The CLI starts in about a second, so the cases of each group run side by side.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-bad-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Only what the CLI needs: no AWS settings of the machine leak into the cases. */
const BASE_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, 'config'),
  DRIFTWATCH_HASH_SALT: 'bad-input-test-salt-0001',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
};
/** Four CLI start-ups side by side on a loaded machine. */
const CLI_TIMEOUT = 90_000;
const FAKE_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_REGION: 'eu-west-1',
};

function cli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'driftwatch.js'), ...args], {
      cwd: dir,
      env: { ...BASE_ENV, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Exactly one line on stderr, no stack frame, nothing that reads as an empty result. */
function expectOneLine(run: CliRun, code: number, line: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr.endsWith('\n') && run.stderr.split('\n').length === 2, run.stderr).toBe(true);
  expect(run.stderr).toMatch(line);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stdout).not.toContain('No findings.');
}

const STATE_FILE = JSON.stringify({
  version: 4,
  terraform_version: '1.11.4',
  serial: 3,
  lineage: '3d5f1c2e-0000-4000-8000-000000000000',
  outputs: {},
  resources: [],
});

describe('evaluate-plan on what is not a plan', () => {
  it(
    'state file, directory, stdin and an unknown action: one line, exit 1, the scan-failed finding on stdout',
    async () => {
      const unknownAction = file(
        'unknown-action.json',
        JSON.stringify({
          format_version: '1.2',
          resource_drift: [
            {
              address: 'aws_s3_bucket.a',
              mode: 'managed',
              type: 'aws_s3_bucket',
              change: { actions: ['explode'], before: {}, after: {} },
            },
          ],
        }),
      );
      mkdirSync(join(dir, 'plans'));
      const [state, directory, stdin, action] = await Promise.all([
        cli(['evaluate-plan', file('terraform.tfstate', STATE_FILE)]),
        cli(['evaluate-plan', join(dir, 'plans'), '--format', 'json']),
        cli(['evaluate-plan', '-', '--format', 'json'], { input: STATE_FILE }),
        cli(['evaluate-plan', unknownAction, '--format', 'json']),
      ]);
      const showPlan = 'run `terraform show -json <planfile>` and pass its output';
      expectOneLine(
        state,
        1,
        new RegExp(
          `^driftwatch: \\S+terraform\\.tfstate: this is a Terraform state file, not a plan: ${escapeRegExp(showPlan)}\\n$`,
        ),
      );
      expect(state.stdout).toMatch(/scan\.plan-invalid/);
      expectOneLine(
        directory,
        1,
        /^driftwatch: \S+plans: is a directory, not a plan file; expected the JSON that `terraform show -json <planfile>` prints\n$/,
      );
      expectOneLine(
        stdin,
        1,
        new RegExp(
          `^driftwatch: stdin: this is a Terraform state file, not a plan: ${escapeRegExp(showPlan)}\\n$`,
        ),
      );
      expectOneLine(
        action,
        1,
        /^driftwatch: \S+unknown-action\.json: invalid plan: resource_drift\[0\] \(aws_s3_bucket\.a\) has an unknown action "explode" \(known: no-op, create, read, update, delete, forget, open, renew, close\): written by a Terraform newer than this driftwatch\?\n$/,
      );
      for (const run of [directory, stdin, action]) {
        const findings = JSON.parse(run.stdout) as Finding[];
        expect(findings.map((finding) => [finding.kind, finding.ruleId])).toEqual([
          ['scan-failed', 'scan.plan-invalid'],
        ]);
      }
    },
    CLI_TIMEOUT,
  );
});

describe('stores and AWS', () => {
  it(
    'a missing store, an unreachable endpoint and no credentials: cause and fix, exit 1',
    async () => {
      const [missingStore, unreachable, noCredentials, debug] = await Promise.all([
        cli(['findings', '--store', join(dir, 'no-such-store')]),
        cli(['findings', '--store', 's3://findings-bucket'], {
          env: { ...FAKE_CREDENTIALS, AWS_ENDPOINT_URL: 'http://127.0.0.1:1', AWS_MAX_ATTEMPTS: '1' },
        }),
        cli(['findings', '--health', '--store', 's3://findings-bucket'], {
          env: { AWS_REGION: 'eu-west-1' },
        }),
        cli(['findings', '--store', join(dir, 'no-such-store'), '--debug']),
      ]);
      expectOneLine(
        missingStore,
        1,
        /^driftwatch: no findings store at \S+no-such-store \(chosen by --store\): pass --store with the directory or s3:\/\/bucket a scan wrote to, or run driftwatch scan first\n$/,
      );
      expectOneLine(
        unreachable,
        1,
        /^driftwatch: connection refused to 127\.0\.0\.1:1 \(ECONNREFUSED\): Check where the SDK sends requests .*AWS_ENDPOINT_URL/,
      );
      expectOneLine(
        noCredentials,
        1,
        /^driftwatch: no AWS credentials found \(CredentialsProviderError\): Give driftwatch credentials through the AWS SDK's own chain/,
      );
      // --debug adds the stack after the same first line.
      expect(debug.code).toBe(1);
      expect(debug.stderr.split('\n')[0]).toBe(missingStore.stderr.trimEnd());
      expect(debug.stderr).toMatch(/^\s+at /m);
    },
    CLI_TIMEOUT,
  );
});

describe('usage errors and bad option values', () => {
  it(
    "a command's option typed before the command says where it goes; an option no command takes stays unknown",
    async () => {
      const cases: Array<[args: string[], line: string]> = [
        [
          ['--store', dir, 'findings'],
          "option '--store' comes before the command: put it after the command (driftwatch findings --store …)",
        ],
        [
          ['--registry=driftwatch.yaml', 'scan'],
          "option '--registry' comes before the command: put it after the command (driftwatch scan --registry …)",
        ],
        [
          ['--bucket', 'b', 'init'],
          "option '--bucket' comes before the command: put it after the command (driftwatch init --bucket …)",
        ],
        [
          ['--revert'],
          "option '--revert' comes before the command: put it after a command that takes it (remediate), e.g. driftwatch remediate --revert …",
        ],
        [
          ['--bogus', 'findings'],
          "unknown option '--bogus' (the command's --help lists its arguments and options)",
        ],
        [
          ['findings', '--fromat', 'json'],
          "unknown option '--fromat' (Did you mean --format?) (the command's --help lists its arguments and options)",
        ],
      ];
      const runs = await Promise.all(cases.map(([args]) => cli(args)));
      cases.forEach(([args, line], index) => {
        expect({ args, stderr: runs[index]!.stderr }).toEqual({ args, stderr: `driftwatch: ${line}\n` });
        expectOneLine(runs[index]!, 64, /^driftwatch: /);
      });
    },
    CLI_TIMEOUT,
  );

  it(
    'exit 64 for usage, exit 1 for a file that is not a registry (its values never printed); --help documents both',
    async () => {
      const tfvars = file('prod.tfvars', 'db_password = "hunter2-very-secret"\nregion = "eu-west-1"\n');
      const [commandHelp, unknownOption, since, registry, help, credentialStore, concurrency] =
        await Promise.all([
          cli(['findings', '--help']),
          cli(['findings', '--bogus']),
          cli(['findings', '--since', '100000000d', '--store', dir]),
          cli(['routes', '--registry', tfvars]),
          cli(['--help']),
          cli(['findings', '--store', 'https://deploy:hunter3-store-password@example.com/x']),
          cli(['scan', '--concurrency', '1000']),
        ]);
      // 1,000 plans at ~0.8 GB each would take the machine down before the first one finished.
      expectOneLine(
        concurrency,
        64,
        /^driftwatch: option '--concurrency <n>' argument '1000' is invalid\. expected a whole number of plans from 1 to 64 /,
      );
      // An error that quotes what the user typed never repeats a password in it.
      // A URL other than s3://bucket is a usage error, not a directory name.
      expectOneLine(
        credentialStore,
        64,
        /^driftwatch: --store takes a directory or s3:\/\/bucket, not https:\/\/deploy:\(redacted\)@example\.com\/x/,
      );
      expect(credentialStore.stderr).not.toContain('hunter3');
      expect(unknownOption.code).toBe(64);
      // One line like every other error, not the whole help after it.
      expectOneLine(
        unknownOption,
        64,
        /^driftwatch: unknown option '--bogus' \(the command's --help lists its arguments and options\)\n$/,
      );
      expectOneLine(
        since,
        64,
        /^driftwatch: --since 100000000d is out of range: use a date from 1970-01-01 to 9999-12-31 or a shorter duration\n$/,
      );
      expectOneLine(
        registry,
        1,
        /^driftwatch: \S+prod\.tfvars:1:1 \(root\): expected a mapping with version, owners and workspaces, got a block of text\n$/,
      );
      expect(registry.stderr).not.toContain('hunter2');
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/Exit codes:\n {2}0 .*\n {2}2 .*\n {6}.*\n {2}1 .*\n.*\n {2}64 /);
      expect(help.stdout).toMatch(
        / {2}2 .*\(with --fail-on <level>: a shown finding at or\n {6}above <level>;/,
      );
      expect(help.stdout).toContain('DRIFTWATCH_STORE');
      expect(help.stdout).toContain('--debug');
      expect(commandHelp.stdout).toContain(
        'Exit codes: 0 nothing above info, 2 findings above info, 1 error or failed scan, 64 usage error.',
      );
      // --fail-on moves the threshold of exit 2 (output.ts exitCodeFor), and the help says how.
      expect(commandHelp.stdout).toContain(
        'With --fail-on <level>: 2 only when a shown finding (after --severity) is at or above <level>,\n' +
          'else 0; an open scan-failed finding still exits 1.',
      );
    },
    CLI_TIMEOUT,
  );
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
