import { describe, expect, it } from 'vitest';
import { findModuleSource, findResourceBlock } from '../../../../functions/core/remediation/locate.js';

/** Where `remediate --adopt` says the block is, in files as teams have them. */
const BLOCK = 'resource "aws_s3_bucket" "data" {\n  bucket = "payments-data"\n}\n';
const crlf = (text: string) => text.replaceAll('\n', '\r\n');

describe('findResourceBlock', () => {
  it.each([
    ['the block on line 1', BLOCK, 1],
    ['a byte order mark before it', `\uFEFF${BLOCK}`, 1],
    ['a byte order mark and CRLF line ends', crlf(`\uFEFF# data\n\n${BLOCK}`), 3],
    ['CRLF line ends', crlf(`# data\n\n${BLOCK}`), 3],
    [
      'a header in a comment first',
      `# resource "aws_s3_bucket" "data" {\n/* resource "aws_s3_bucket" "data" {\n*/\n${BLOCK}`,
      4,
    ],
    [
      'a header in a heredoc first (CRLF)',
      crlf(`locals {\n  x = <<-EOT\n    resource "aws_s3_bucket" "data" {\n  EOT\n}\n${BLOCK}`),
      6,
    ],
    [
      'a header in a string with an interpolation',
      `locals {\n  x = "resource \\"aws_s3_bucket\\" \\"data\\" { \${"}"}"\n}\n${BLOCK}`,
      4,
    ],
    ['another block on one line before it', `resource "aws_s3_bucket" "other" {}\n${BLOCK}`, 2],
  ])('%s', (_name, text, line) => {
    expect(findResourceBlock([{ path: 'main.tf', text }], 'aws_s3_bucket', 'data')).toEqual({
      file: 'main.tf',
      line,
    });
  });
});

describe('findResourceBlock in .tf.json', () => {
  const bucket = { data: { bucket: 'payments-data' } };
  it.each<[string, string, number | undefined]>([
    ['indented', JSON.stringify({ resource: { aws_s3_bucket: bucket } }, null, 2), 4],
    ['minified', JSON.stringify({ resource: { aws_s3_bucket: bucket } }), 1],
    [
      'a data source of the same type and name first',
      JSON.stringify({ data: { aws_s3_bucket: bucket }, resource: { aws_s3_bucket: bucket } }, null, 2),
      11,
    ],
    [
      'the name as a value and a nested key first',
      JSON.stringify(
        { resource: { aws_s3_bucket: { other: { bucket: 'data', tags: { data: '1' } }, ...bucket } } },
        null,
        2,
      ),
      10,
    ],
    [
      'blocks as lists of objects',
      JSON.stringify(
        { resource: [{ aws_iam_role: { app: {} } }, { aws_s3_bucket: [{ data: [{}] }] }] },
        null,
        2,
      ),
      11,
    ],
    [
      'CRLF line ends',
      JSON.stringify({ resource: { aws_s3_bucket: bucket } }, null, 2).replaceAll('\n', '\r\n'),
      4,
    ],
    ['only a data source', JSON.stringify({ data: { aws_s3_bucket: bucket } }, null, 2), undefined],
    ['not JSON', '{"resource": {"aws_s3_bucket": {"data": ', undefined],
  ])('%s', (_name, text, line) => {
    const found = findResourceBlock([{ path: 'main.tf.json', text }], 'aws_s3_bucket', 'data');
    expect(found).toEqual(line === undefined ? undefined : { file: 'main.tf.json', line });
  });

  it.each([
    ['one object', { module: { db: { source: './modules/db' } } }],
    ['the call as a list', { module: { db: [{ source: './modules/db' }] } }],
    ['module as a list', { module: [{ vpc: { source: 'x/vpc/aws' } }, { db: { source: './modules/db' } }] }],
  ])('the source of a module call: %s', (_name, document) => {
    expect(findModuleSource([{ path: 'main.tf.json', text: JSON.stringify(document) }], 'db')).toBe(
      './modules/db',
    );
  });
});
