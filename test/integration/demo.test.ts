import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, useTempDir } from '../helpers/integration.js';

/**
 * `npm start` is the first thing a newcomer runs: it must work as the README and docs/getting-started.md say, stop its
 * moto_server when it is done, and also when it is interrupted.
 */
const temp = useTempDir();

/**
 * Whether anything still accepts connections at the endpoint: only a refused connection says no. A
 * moto busy with the demo's Terraform runs on a loaded machine may answer late (or not within the
 * bound), which is still listening; a stopped one refuses at once, so the bound costs nothing then.
 */
async function isListening(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(30_000) });
    return true;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED';
  }
}

describe('driftwatch demo', () => {
  it('finds exactly the staged changes, exits 0, and stops moto', async () => {
    const run = await runCli(['demo', '--store', join(temp.path, 'demo')]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The long provisioning wait says what it waits for before anything else prints.
    expect(run.stdout).toMatch(/==> Provisioning .*\n {4}waiting for terraform init \+ apply, 3 at once/);
    // What it waits on (the plugin cache lock, held by another workspace's init) is said in words,
    // never as a JSON log line.
    expect(run.stdout + run.stderr).not.toMatch(/^\s*\{"level":/m);
    for (const address of [
      'aws_security_group.db',
      'aws_sns_topic.deploys',
      'aws_ssm_parameter.db_password',
      'aws_s3_bucket.ledger',
    ]) {
      expect(run.stdout).toContain(address);
    }
    expect(run.stdout).toMatch(/CRITICAL\s+new\s+payments-prod\s+drift\.update\s+aws_security_group\.db/);
    expect(run.stdout).toContain(`Stored in ${join(temp.path, 'demo')}/scans/dt=`);
    // Each owner's digest, as delivered through SNS to that owner's filtered subscription.
    // platform owns the deleted topic and, as fallback owner, the shared state bucket's finding.
    expect(run.stdout).toMatch(
      /┌─ Slack T0DEMO0001\/#C0PLATFORM \(platform\)\n│ 🟠 driftwatch for platform: 2 new/,
    );
    expect(run.stdout).toMatch(/MEDIUM\s+new\s+s3\.driftwatch-demo-tfstate\s+backend\.tls-only/);
    expect(run.stdout).toMatch(
      /┌─ email payments-oncall@example.com \(payments\)\n│ 🔴 driftwatch for payments: 3 new/,
    );
    expect(run.stdout).not.toContain('rotated-by-hand');
    // It ends with the next command to run, on one's own estate.
    expect(run.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'Next, your own estate (docs/getting-started.md):',
      '  npx driftwatch init --bucket <your-state-bucket>',
    ]);
    const endpoint = /http:\/\/127\.0\.0\.1:\d+/.exec(run.stdout)?.[0];
    expect(endpoint).toBeDefined();
    expect(await isListening(endpoint!)).toBe(false);
  });

  it('stops moto and Terraform on Ctrl-C, and leaves no temporary directory', async () => {
    // Its own temporary directory: whatever the interrupted demo leaves there is its own.
    const tmp = join(temp.path, 'tmp');
    mkdirSync(tmp);
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'bin/driftwatch.js'), 'demo', '--store', join(temp.path, 'interrupted')],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    let errors = '';
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    // Interrupt while Terraform is provisioning: moto is up and terraform processes are running. A
    // demo that ends before it provisions fails the test with its output (it waited for ever).
    await new Promise<void>((resolve, reject) => {
      const ended = (code: number | null) => {
        clearInterval(check);
        reject(new Error(`the demo ended (exit ${code}) before provisioning:\n${output}${errors}`));
      };
      const check = setInterval(() => {
        if (output.includes('==> Provisioning')) {
          clearInterval(check);
          child.off('exit', ended);
          setTimeout(resolve, 3000);
        }
      }, 100);
      child.once('exit', ended);
    });
    const endpoint = /http:\/\/127\.0\.0\.1:\d+/.exec(output)?.[0];
    expect(await isListening(endpoint!)).toBe(true);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(130);
    // The exit hook waits until moto is torn down: nothing accepts on its port once the demo is gone.
    expect(await isListening(endpoint!)).toBe(false);
    // The staged copies of the demo's roots (with their Terraform data) were removed on the way out.
    expect(readdirSync(tmp)).toEqual([]);
  });
});
