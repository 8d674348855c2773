import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../helpers/integration.js';
import { runNode } from '../../helpers/processes.js';

/** The `driftwatch` binary as npm installs it: compiled JavaScript, no TypeScript at run time. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-compiled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the compiled CLI', () => {
  it('runs dist/ (built by prepare and before the tests), never the TypeScript sources', async () => {
    const bin = readFileSync(join(REPO_ROOT, 'bin', 'driftwatch.js'), 'utf8');
    expect(bin).not.toMatch(/tsx/);
    const run = await runCli(['routes', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: driftwatch routes/);
  });

  it('says in one line how to build it when dist/ is missing', async () => {
    // A checkout whose dependencies were installed without running `prepare`.
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(REPO_ROOT, 'bin', 'driftwatch.js'), join(dir, 'bin', 'driftwatch.js'));
    const run = await runNode([join(dir, 'bin', 'driftwatch.js'), '--help']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('driftwatch: the CLI is not built (no dist/cli/main.js); run: npm run build\n');
  });

  it('stops quietly when its reader goes away (driftwatch … | head), reporting no error', async () => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'driftwatch.js'), '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the CLI has started, so its first write meets a broken pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('help marks required options, and says which exit codes each command has', async () => {
    const suppress = await runCli(['suppress', '--help']);
    expect(suppress.stdout).toMatch(/--reason <text> +why this finding may be ignored for now \(required\)/);
    expect(suppress.stdout).toMatch(/--registry <file>.*\n/);
    expect(suppress.stdout).not.toMatch(/--registry <file>[^\n]*\(required\)/);
    expect(suppress.stdout).toContain('Exit codes: 0 suppressed, 1 no such open finding');
    const findings = await runCli(['findings', '--help']);
    expect(findings.stdout).toContain('2 findings above info');
  });
});
