import { describe, expect, it } from 'vitest';
import { findResourceBlock } from '../../../../functions/core/remediation/locate.js';

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
