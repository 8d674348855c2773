import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackendBlock } from '../../../functions/adapters/terraform/backend-block.js';
import {
  readRequiredVersions,
  readTerraformConfiguration,
} from '../../../functions/adapters/terraform/configuration-reader.js';

/** Real-looking configurations, parsed by the real HCL parser (WebAssembly, offline). */

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'driftwatch-config-'));
  writeFileSync(
    join(root, 'main.tf'),
    `terraform {
  backend "s3" {}
}

locals {
  # ignore_changes = [not_a_real_block] inside a comment and a heredoc must not count
  doc = <<-EOT
    lifecycle { ignore_changes = [description] }
  EOT
}

resource "aws_s3_bucket" "logs" {
  bucket = "logs"
  tags   = { Owner = "payments", Team = "ledger" }

  lifecycle {
    prevent_destroy = true
    ignore_changes  = [tags["Owner"], versioning[0].enabled]
  }
}

resource "aws_sqs_queue" "jobs" {
  count = 2
  name  = "jobs-\${count.index}"
  lifecycle {
    ignore_changes = all
  }
}

resource "aws_sns_topic" "events" {
  for_each = toset(["a", "b"])
  name     = each.key
  lifecycle {
    ignore_changes = [tags]
  }
}

resource "aws_s3_bucket" "plain" {
  bucket = "plain"
}

module "db" {
  source   = "./modules/db"
  for_each = toset(["eu", "us"])
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}

removed {
  from = aws_s3_bucket.old
  lifecycle {
    destroy = false
  }
}

import {
  to = aws_s3_bucket.plain
  id = "plain"
}

moved {
  from = aws_s3_bucket.a
  to   = aws_s3_bucket.logs
}
`,
  );
  writeFileSync(
    join(root, 'legacy.tf.json'),
    JSON.stringify({
      resource: {
        aws_iam_role: { app: { name: 'app', lifecycle: { ignore_changes: ['max_session_duration'] } } },
      },
    }),
  );
  mkdirSync(join(root, 'modules', 'db'), { recursive: true });
  writeFileSync(
    join(root, 'modules', 'db', 'main.tf'),
    `resource "aws_db_instance" "main" {
  identifier = "db"
  lifecycle {
    ignore_changes = [password, tags["Backup"]]
  }
}

removed {
  from = aws_db_instance.replica
}
`,
  );
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('readTerraformConfiguration', () => {
  it('reads ignore_changes of every resource, with [*] for count/for_each and local modules', async () => {
    const { facts, problems } = await readTerraformConfiguration(root);
    expect(problems).toEqual([]);
    expect(facts.ignoreChanges).toEqual([
      { address: 'aws_iam_role.app', paths: [['max_session_duration']], file: 'legacy.tf.json' },
      {
        address: 'aws_s3_bucket.logs',
        paths: [
          ['tags', 'Owner'],
          ['versioning', 0, 'enabled'],
        ],
        file: 'main.tf',
      },
      { address: 'aws_sns_topic.events[*]', paths: [['tags']], file: 'main.tf' },
      { address: 'aws_sqs_queue.jobs[*]', paths: 'all', file: 'main.tf' },
      {
        address: 'module.db[*].aws_db_instance.main',
        paths: [['password'], ['tags', 'Backup']],
        file: 'modules/db/main.tf',
      },
    ]);
  });

  it('reads removed blocks (destroy = false forgets; the default destroys), module-relative', async () => {
    const { facts } = await readTerraformConfiguration(root);
    expect(facts.removed).toEqual([
      { from: 'aws_s3_bucket.old', destroy: false, file: 'main.tf' },
      { from: 'module.db[*].aws_db_instance.replica', destroy: true, file: 'modules/db/main.tf' },
    ]);
  });

  it('a file the parser rejects is a one-line problem with its location; the others are still read', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'driftwatch-config-broken-'));
    try {
      writeFileSync(join(broken, 'bad.tf'), 'resource "aws_s3_bucket" "x" {\n  bucket = "secret-value"\n');
      writeFileSync(
        join(broken, 'good.tf'),
        'resource "aws_s3_bucket" "y" {\n  lifecycle {\n    ignore_changes = [tags]\n  }\n}\n',
      );
      const { facts, problems } = await readTerraformConfiguration(broken);
      expect(problems).toEqual(['bad.tf:1: Unclosed configuration block']);
      expect(problems.join('\n')).not.toContain('secret-value');
      expect(facts.ignoreChanges.map((rule) => rule.address)).toEqual(['aws_s3_bucket.y']);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  // Terraform merges an override file's lifecycle block argument by argument: its ignore_changes wins.
  const counted =
    'resource "aws_s3_bucket" "b" {\n  count = 2\n  lifecycle {\n    ignore_changes = [tags, acl]\n  }\n}\n';
  const amend = (lifecycle: string) => `resource "aws_s3_bucket" "b" {\n  ${lifecycle}\n}\n`;
  it.each<[string, Record<string, string>, unknown[]]>([
    [
      'an override narrows the list',
      { 'main.tf': counted, 'override.tf': amend('lifecycle {\n    ignore_changes = [tags]\n  }') },
      [{ address: 'aws_s3_bucket.b[*]', paths: [['tags']], file: 'override.tf' }],
    ],
    [
      'an override that sorts first empties it',
      { 'main.tf': counted, 'a_override.tf': amend('lifecycle {\n    ignore_changes = []\n  }') },
      [],
    ],
    [
      'an override sets all, without repeating count',
      { 'main.tf': counted, 'db_override.tf': amend('lifecycle {\n    ignore_changes = all\n  }') },
      [{ address: 'aws_s3_bucket.b[*]', paths: 'all', file: 'db_override.tf' }],
    ],
    [
      "an override without ignore_changes keeps the block's",
      { 'main.tf': counted, 'override.tf': amend('lifecycle {\n    prevent_destroy = true\n  }') },
      [{ address: 'aws_s3_bucket.b[*]', paths: [['tags'], ['acl']], file: 'main.tf' }],
    ],
    [
      'an override adds ignore_changes to a block without',
      {
        'main.tf': 'resource "aws_s3_bucket" "b" {\n  count = 2\n}\n',
        'override.tf': amend('lifecycle {\n    ignore_changes = [tags]\n  }'),
      },
      [{ address: 'aws_s3_bucket.b[*]', paths: [['tags']], file: 'override.tf' }],
    ],
  ])('%s', async (_name, files, ignoreChanges) => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-config-override-'));
    try {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      const { facts, problems } = await readTerraformConfiguration(dir);
      expect(problems).toEqual([]);
      expect(facts.ignoreChanges).toEqual(ignoreChanges);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // HCL ranges are `main.tf:1,14-15` on one line and `main.tf:6,16-7,1` across lines.
  it.each([
    [
      'an unclosed block',
      'resource "aws_s3_bucket" "x" {\n  bucket = "secret-value"\n',
      'bad.tf:1: Unclosed configuration block',
    ],
    [
      'a line that is not HCL',
      'locals {}\nthis is not secret-value HCL\n',
      'bad.tf:2: Invalid block definition',
    ],
    ['an argument without a value', 'locals {\n  x =\n}\n', 'bad.tf:2: Invalid expression'],
  ])('%s is one located problem, in both readers, without the file content', async (_name, text, problem) => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-config-problem-'));
    try {
      writeFileSync(join(dir, 'bad.tf'), text);
      const { problems } = await readTerraformConfiguration(dir);
      expect(problems).toEqual([problem]);
      const backend = (await readBackendBlock(dir).catch((error: Error) => error)) as Error;
      expect(backend.message).toBe(
        `bad.tf does not parse as Terraform configuration (${problem}): fix it, \`terraform validate\` shows the error`,
      );
      expect([...problems, backend.message].join('\n')).not.toContain('secret-value');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads .tf.json blocks written as lists of objects at every level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-config-json-lists-'));
    try {
      mkdirSync(join(dir, 'db'));
      const lifecycle = { lifecycle: [{ ignore_changes: ['tags'] }] };
      writeFileSync(
        join(dir, 'main.tf.json'),
        JSON.stringify({
          resource: [{ aws_iam_role: { app: lifecycle } }, { aws_s3_bucket: [{ b: [lifecycle] }] }],
          module: [{ db: [{ source: './db' }] }],
        }),
      );
      writeFileSync(
        join(dir, 'db', 'main.tf.json'),
        JSON.stringify({ resource: [{ aws_sqs_queue: { q: lifecycle } }] }),
      );
      const { facts, problems } = await readTerraformConfiguration(dir);
      expect(problems).toEqual([]);
      expect(facts.ignoreChanges.map((rule) => rule.address)).toEqual([
        'aws_iam_role.app',
        'aws_s3_bucket.b',
        'module.db.aws_sqs_queue.q',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a root that is missing (absolute or relative) or a file: what it is and where it was looked for, in both readers', async () => {
    const file = join(root, 'main.tf');
    const cases: Array<[path: string, message: string]> = [
      [join(root, 'nope'), `${join(root, 'nope')} does not exist`],
      ['nope/infra', `nope/infra does not exist (looked for from ${process.cwd()})`],
      [file, `${file} is a file, not a directory: give the directory that holds it`],
    ];
    for (const [path, message] of cases)
      for (const read of [readTerraformConfiguration, readBackendBlock] as const) {
        const error = await (read as (dir: string) => Promise<unknown>)(path).catch((e: Error) => e);
        expect({ path, read: read.name, message: (error as Error).message }).toEqual({
          path,
          read: read.name,
          message,
        });
      }
  });
});

describe('readRequiredVersions', () => {
  it('collects required_version of every terraform block of the root (HCL and JSON), not of modules or comments', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-required-'));
    try {
      writeFileSync(
        join(dir, 'versions.tf'),
        '# required_version = "0.12.0"\nterraform {\n  required_version = ">= 1.5, < 2.0"\n  backend "s3" {}\n}\n',
      );
      writeFileSync(join(dir, 'z.tf.json'), JSON.stringify({ terraform: { required_version: '!= 1.9.0' } }));
      writeFileSync(join(dir, 'main.tf'), 'terraform {\n  required_providers {}\n}\n');
      mkdirSync(join(dir, 'modules'));
      writeFileSync(join(dir, 'modules', 'x.tf'), 'terraform {\n  required_version = "= 0.13.0"\n}\n');
      expect(await readRequiredVersions(dir)).toEqual(['>= 1.5, < 2.0', '!= 1.9.0']);
      // OpenTofu reads x.tofu instead of its x.tf twin.
      writeFileSync(join(dir, 'versions.tofu'), 'terraform {\n  required_version = "~> 1.8.0"\n}\n');
      expect(await readRequiredVersions(dir, { tofu: true })).toEqual(['~> 1.8.0', '!= 1.9.0']);
      expect(await readRequiredVersions(dir)).toEqual(['>= 1.5, < 2.0', '!= 1.9.0']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
