import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBackendBlock } from '../../../functions/adapters/terraform/backend-block.js';
import {
  configurationFileOrder,
  configurationFiles,
} from '../../../functions/adapters/terraform/configuration-files.js';
import {
  readRequiredVersions,
  readTerraformConfiguration,
} from '../../../functions/adapters/terraform/configuration-reader.js';

/** Which entries of a directory Terraform reads as configuration, and in which order. */
describe('configurationFileOrder', () => {
  it.each([
    [
      'plain files by name',
      ['variables.tf', 'main.tf', 'b.tf.json'],
      {},
      ['b.tf.json', 'main.tf', 'variables.tf'],
    ],
    [
      'override files after all the others',
      ['override.tf', 'a_override.tf', 'main.tf', 'z.tf', 'db_override.tf.json'],
      {},
      ['main.tf', 'z.tf', 'a_override.tf', 'db_override.tf.json', 'override.tf'],
    ],
    [
      'an editor lock file (.#main.tf) and hidden files',
      ['.#main.tf', '.hidden.tf', 'main.tf'],
      {},
      ['main.tf'],
    ],
    ['backups (main.tf~, #main.tf#)', ['main.tf~', '#main.tf#', 'main.tf'], {}, ['main.tf']],
    ['other extensions', ['main.tf.bak', 'README.md', 'vars.tfvars', 'main.tf'], {}, ['main.tf']],
    [
      'not_override.tf is a primary file',
      ['not_overrides.tf', 'overrides.tf', 'main.tf'],
      {},
      ['main.tf', 'not_overrides.tf', 'overrides.tf'],
    ],
    ['.tofu files only for OpenTofu', ['main.tofu', 'main.tf', 'x.tf'], {}, ['main.tf', 'x.tf']],
    ['a .tofu twin hides its .tf', ['main.tofu', 'main.tf', 'x.tf'], { tofu: true }, ['main.tofu', 'x.tf']],
    [
      'OpenTofu overrides last too',
      ['override.tofu', 'main.tofu'],
      { tofu: true },
      ['main.tofu', 'override.tofu'],
    ],
  ])('%s', (_name, names, options, expected) => {
    expect(configurationFileOrder(names, options)).toEqual(expected);
  });
});

describe('a root with entries Terraform does not read', () => {
  const root = mkdtempSync(join(tmpdir(), 'driftwatch-config-files-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(
    join(root, 'main.tf'),
    'terraform {\n  required_version = ">= 1.5"\n  backend "s3" {\n    bucket = "tfstate"\n  }\n}\n\nresource "aws_s3_bucket" "b" {\n  lifecycle {\n    ignore_changes = [tags]\n  }\n}\n',
  );
  // Emacs' lock file for an open main.tf: a symlink to nowhere.
  symlinkSync('someone@host.4242:1700000000', join(root, '.#main.tf'));
  writeFileSync(join(root, 'main.tf~'), 'resource "aws_s3_bucket" "b" {\n');
  mkdirSync(join(root, 'x.tf'));
  mkdirSync(join(root, 'elsewhere'));
  symlinkSync(join(root, 'elsewhere'), join(root, 'linked.tf'));

  it('lists only the configuration files', () => {
    expect(configurationFiles(root)).toEqual(['main.tf']);
  });

  it('every reader reads the root without a problem', async () => {
    const reading = await readTerraformConfiguration(root);
    expect(reading.problems).toEqual([]);
    expect(reading.facts.ignoreChanges).toEqual([
      { address: 'aws_s3_bucket.b', paths: [['tags']], file: 'main.tf' },
    ]);
    expect(await readRequiredVersions(root)).toEqual(['>= 1.5']);
    expect(await readBackendBlock(root)).toMatchObject({
      found: 's3',
      block: { bucket: 'tfstate', file: 'main.tf' },
    });
  });
});

describe('an OpenTofu root (engine: opentofu)', () => {
  const root = mkdtempSync(join(tmpdir(), 'driftwatch-config-tofu-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  // main.tofu replaces its main.tf twin for OpenTofu; backend.tofu exists only for OpenTofu.
  writeFileSync(
    join(root, 'main.tf'),
    'resource "aws_s3_bucket" "b" {\n  lifecycle {\n    ignore_changes = all\n  }\n}\n',
  );
  writeFileSync(
    join(root, 'main.tofu'),
    'resource "aws_s3_bucket" "b" {\n  lifecycle {\n    ignore_changes = [tags]\n  }\n}\n',
  );
  writeFileSync(
    join(root, 'backend.tofu'),
    'terraform {\n  backend "s3" {\n    bucket = "tfstate"\n  }\n}\n',
  );

  it.each([
    [{ tofu: true }, [{ address: 'aws_s3_bucket.b', paths: [['tags']], file: 'main.tofu' }], { found: 's3' }],
    [{}, [{ address: 'aws_s3_bucket.b', paths: 'all', file: 'main.tf' }], { found: 'none' }],
  ])(
    '%o: the configuration facts and the backend block come from the files that engine reads',
    async (options, ignoreChanges, backend) => {
      expect((await readTerraformConfiguration(root, options)).facts.ignoreChanges).toEqual(ignoreChanges);
      expect(await readBackendBlock(root, options)).toMatchObject(backend);
    },
  );
});
