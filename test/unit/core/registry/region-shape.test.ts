import { describe, expect, it } from 'vitest';
import { assertBucketName } from '../../../../cli/backend-session.js';
import { regionProblem } from '../../../../functions/core/registry/formats.js';

describe('region names', () => {
  it.each([
    ['eu-west-1'],
    ['us-gov-west-1'],
    ['cn-north-1'],
    ['ap-southeast-5'],
    // The European Sovereign Cloud: a four-letter partition prefix.
    ['eusc-de-east-1'],
  ])('%s is a region', (region) => {
    expect(regionProblem(region)).toBeUndefined();
  });

  it.each([['Ireland'], ['EU-WEST-1'], ['eu-west'], ['eu west 1'], ['europe-west-1-'], ['e-west-1']])(
    '%j is not',
    (region) => {
      expect(regionProblem(region)).toMatch(/is not an AWS region/);
    },
  );
});

describe('--bucket', () => {
  it('takes a bucket name, and for a URL or a path names the --bucket (and --prefix) to pass', () => {
    expect(assertBucketName('tfstate-prod')).toBe('tfstate-prod');
    expect(() => assertBucketName('s3://tfstate-prod')).toThrow(/: pass --bucket tfstate-prod$/);
    expect(() => assertBucketName('tfstate-prod/')).toThrow(/: pass --bucket tfstate-prod$/);
    expect(() => assertBucketName('S3://tfstate-prod/env/app')).toThrow(
      /: pass --bucket tfstate-prod \(and --prefix env\/app for part of it\)$/,
    );
    expect(() => assertBucketName('Tf_State')).toThrow(/not 'Tf_State'$/);
  });
});
