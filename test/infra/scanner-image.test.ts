import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { stageImageContext } from '../../infra/constructs/driftwatch-function.js';
import { SCANNER_DOCKERFILE } from '../../infra/driftwatch-stack.js';
import { REPO_ROOT } from '../../infra/paths.js';
import { scratchDir } from '../helpers/scratch-dirs.js';

const dockerfile = readFileSync(join(REPO_ROOT, SCANNER_DOCKERFILE), 'utf8');
const arg = (name: string) => dockerfile.match(new RegExp(`^ARG ${name}=(\\S+)$`, 'm'))?.[1];

describe('the scanner image (docker/scanner/Dockerfile)', () => {
  it('starts from the AWS Lambda Node.js 24 base image', () => {
    expect(dockerfile).toMatch(/^FROM public\.ecr\.aws\/lambda\/nodejs:24$/m);
    expect(dockerfile).toMatch(/^CMD \["index\.handler"\]$/m);
  });

  it('installs a pinned Terraform and checks its SHA-256 before unpacking it', () => {
    expect(arg('TERRAFORM_VERSION')).toBe('1.11.4');
    expect(arg('TERRAFORM_SHA256_LINUX_ARM64')).toMatch(/^[0-9a-f]{64}$/);
    expect(arg('TERRAFORM_SHA256_LINUX_AMD64')).toMatch(/^[0-9a-f]{64}$/);
    const verify = dockerfile.indexOf('sha256sum -c');
    expect(verify).toBeGreaterThan(0);
    expect(verify).toBeLessThan(dockerfile.indexOf('unzip -q'));
    // The download URL is built from the pinned version (shell variables, not JavaScript ones).
    expect(dockerfile).toMatch(/releases\.hashicorp\.com\/terraform\/\$\{TERRAFORM_VERSION\}\//);
  });

  it('carries git and OpenSSH in the final stage: Terraform runs them for git:: module sources', () => {
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(finalStage).toMatch(/^FROM public\.ecr\.aws\/lambda\/nodejs:24$/m);
    expect(finalStage).toMatch(/^RUN dnf install -y git openssh-clients && dnf clean all$/m);
  });

  it('keeps HOME, TF_DATA_DIR and the provider plugin cache under /tmp (the only writable place)', () => {
    expect(dockerfile).toMatch(/HOME=\/tmp\b/);
    expect(dockerfile).toMatch(/TF_DATA_DIR=\/tmp\//);
    expect(dockerfile).toMatch(/TF_PLUGIN_CACHE_DIR=\/tmp\//);
    expect(dockerfile).toMatch(/^COPY handler\/ \$\{LAMBDA_TASK_ROOT\}\/$/m);
  });

  it('gets its build context at synth: the Dockerfile and the scan-terraform handler bundled by esbuild', () => {
    const stack = new Stack(new App({ outdir: scratchDir('driftwatch-cdk-test-') }), 'ImageContext');
    const dir = stageImageContext(stack, 'scan-terraform', SCANNER_DOCKERFILE);
    expect(readFileSync(join(dir, 'Dockerfile'), 'utf8')).toBe(dockerfile);
    const bundle = join(dir, 'handler', 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    const code = readFileSync(bundle, 'utf8');
    expect(code.startsWith('import { createRequire as __driftwatchCreateRequire }')).toBe(true);
    expect(code).toContain('refresh-only');
    expect(statSync(bundle).size).toBeGreaterThan(100_000);
  }, 30_000);

  it('ships the HCL parser (ignore_changes) installed beside the bundle: it reads its WebAssembly from there', async () => {
    const stack = new Stack(new App({ outdir: scratchDir('driftwatch-cdk-test-') }), 'ImageParser');
    const dir = stageImageContext(stack, 'scan-terraform', SCANNER_DOCKERFILE);
    const beside = createRequire(join(dir, 'handler', 'index.mjs'));
    const parserEntry = beside.resolve('@cdktn/hcl2json');
    expect(parserEntry.startsWith(join(dir, 'handler', 'node_modules'))).toBe(true);
    const parser = beside('@cdktn/hcl2json') as {
      parse(file: string, text: string): Promise<Record<string, unknown>>;
    };
    const parsed = await parser.parse(
      'main.tf',
      'resource "a" "b" {\n  lifecycle {\n    ignore_changes = all\n  }\n}\n',
    );
    expect(parsed).toEqual({ resource: { a: { b: [{ lifecycle: [{ ignore_changes: `\${all}` }] }] } } });
    // The bundle imports it at run time instead of inlining it.
    expect(readFileSync(join(dir, 'handler', 'index.mjs'), 'utf8')).toContain('@cdktn/hcl2json');
  }, 60_000);
});
