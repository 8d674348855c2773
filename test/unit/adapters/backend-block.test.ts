import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBackendBlock } from '../../../functions/adapters/terraform/backend-block.js';

const base = mkdtempSync(join(tmpdir(), 'driftwatch-backend-block-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function root(name: string, files: Record<string, string>): string {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

describe('readBackendBlock', () => {
  it('reads the backend "s3" block of a root with HCL comments and other blocks around it', async () => {
    const dir = root('s3', {
      'main.tf': 'resource "aws_sqs_queue" "q" { name = "q" }\n',
      'versions.tf': `# state in S3
terraform {
  required_version = ">= 1.5"
  backend "s3" {
    bucket         = "tfstate-prod" # shared
    key            = "payments/terraform.tfstate"
    region         = "eu-west-1"
    use_lockfile   = true
    dynamodb_table = "tf-locks"
    workspace_key_prefix = "workspaces"
  }
}
`,
    });
    expect(await readBackendBlock(dir)).toEqual({
      found: 's3',
      block: {
        file: 'versions.tf',
        bucket: 'tfstate-prod',
        key: 'payments/terraform.tfstate',
        region: 'eu-west-1',
        useLockfile: true,
        dynamodbTable: 'tf-locks',
        workspaceKeyPrefix: 'workspaces',
      },
    });
  });

  it('leaves out what partial configuration supplies at init', async () => {
    const dir = root('partial', {
      'backend.tf': 'terraform {\n  backend "s3" {\n    key = "app.tfstate"\n  }\n}\n',
    });
    expect(await readBackendBlock(dir)).toEqual({
      found: 's3',
      block: { file: 'backend.tf', key: 'app.tfstate' },
    });
  });

  it.each([
    ['one body each', { terraform: { backend: { s3: { bucket: 'b-1', key: 'k', region: 'us-east-1' } } } }],
    // Terraform's JSON syntax allows a list wherever a block may be (the backend's list was skipped).
    [
      'lists of bodies',
      { terraform: [{ backend: [{ s3: [{ bucket: 'b-1', key: 'k', region: 'us-east-1' }] }] }] },
    ],
  ])('reads .tf.json roots (%s)', async (name, body) => {
    const dir = root(`json-${name.replace(/ /g, '-')}`, { 'main.tf.json': JSON.stringify(body) });
    expect(await readBackendBlock(dir)).toMatchObject({
      found: 's3',
      block: { bucket: 'b-1', region: 'us-east-1' },
    });
  });

  it('names a cloud block (HCP Terraform keeps the state)', async () => {
    const cloud = root('cloud', {
      'main.tf': 'terraform {\n  cloud {\n    organization = "x"\n    workspaces { name = "w" }\n  }\n}\n',
    });
    expect(await readBackendBlock(cloud)).toEqual({ found: 'cloud', file: 'main.tf' });
  });

  it('names another backend type, and says when there is none', async () => {
    const remote = root('remote', {
      'main.tf': 'terraform {\n  backend "remote" {\n    organization = "x"\n  }\n}\n',
    });
    expect(await readBackendBlock(remote)).toEqual({ found: 'other', type: 'remote', file: 'main.tf' });
    const none = root('none', { 'main.tf': 'resource "aws_sqs_queue" "q" {}\n' });
    expect(await readBackendBlock(none)).toEqual({ found: 'none', files: 1 });
    expect(await readBackendBlock(root('empty', {}))).toEqual({ found: 'none', files: 0 });
  });

  // Checked against terraform 1.11 init: an override file's backend replaces the primary one whole
  // (its bucket is then required again), the last override file by name wins, and two blocks in one
  // override file are "Duplicate backend configuration".
  it('reads the backend Terraform uses when an override file replaces it, and refuses what Terraform refuses', async () => {
    const primary =
      'terraform {\n  backend "s3" {\n    bucket = "tfstate-prod"\n    key = "app.tfstate"\n  }\n}\n';
    const overridden = root('overridden', {
      'main.tf': primary,
      'backend_override.tf': 'terraform {\n  backend "s3" {\n    key = "over.tfstate"\n  }\n}\n',
    });
    expect(await readBackendBlock(overridden)).toEqual({
      found: 's3',
      block: { file: 'backend_override.tf', key: 'over.tfstate' },
    });
    // A developer's local backend, kept out of Git: Terraform in this checkout uses that one.
    const local = root('local-override', {
      'main.tf': primary,
      'override.tf': 'terraform {\n  backend "local" {}\n}\n',
    });
    expect(await readBackendBlock(local)).toEqual({ found: 'other', type: 'local', file: 'override.tf' });
    const last = root('last-override', {
      'main.tf': primary,
      'a_override.tf': 'terraform {\n  backend "local" {}\n}\n',
      'b_override.tf.json': JSON.stringify({ terraform: { backend: { s3: { bucket: 'b-2', key: 'k' } } } }),
    });
    expect(await readBackendBlock(last)).toEqual({
      found: 's3',
      block: { file: 'b_override.tf.json', bucket: 'b-2', key: 'k' },
    });
    const twoInOverride = root('two-in-override', {
      'main.tf': primary,
      'override.tf': 'terraform {\n  backend "local" {}\n  backend "s3" {}\n}\n',
    });
    expect(await readBackendBlock(twoInOverride)).toEqual({
      found: 'several',
      files: ['override.tf', 'override.tf'],
    });
    const twoPrimaries = root('two-primaries', {
      'a.tf': primary,
      'b.tf': primary,
      'override.tf': primary,
    });
    expect(await readBackendBlock(twoPrimaries)).toEqual({ found: 'several', files: ['a.tf', 'b.tf'] });
  });

  it('fails on a missing directory and on a file that does not parse', async () => {
    await expect(readBackendBlock(join(base, 'missing'))).rejects.toThrow(
      `${join(base, 'missing')} does not exist`,
    );
    const broken = root('broken', { 'main.tf': 'terraform {\n  backend "s3" {\n' });
    await expect(readBackendBlock(broken)).rejects.toThrow(/^main\.tf does not parse/);
  });
});
