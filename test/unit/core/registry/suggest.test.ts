import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance } from '../../../../functions/core/registry/suggest.js';

describe('closestMatch', () => {
  const workspaceKeys = ['id', 'owner', 'environment', 'source', 'backend', 'roleArn', 'routes', 'env'];

  it.each([
    ['bakend', 'backend'],
    ['backedn', 'backend'],
    ['RoleArn', 'roleArn'],
    ['enviroment', 'environment'],
    ['ownr', 'owner'],
    ['route', 'routes'],
  ])('suggests %s -> %s', (typo, expected) => {
    expect(closestMatch(typo, workspaceKeys)).toBe(expected);
  });

  it.each(['timeout', 'x', 'credentials'])('suggests nothing for the unrelated %s', (word) => {
    expect(closestMatch(word, workspaceKeys)).toBeUndefined();
  });
});

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['dri', 'dir', 1],
    ['backend', 'backend', 0],
  ])('%s -> %s is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});
