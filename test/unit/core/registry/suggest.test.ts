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

describe('closestMatch of a shortened id: the one candidate it begins', () => {
  const workspaceIds = ['payments-prod', 'ledger-prod', 'ledger-dev', 'search'];

  it.each([
    ['payments', 'payments-prod'],
    ['payments-', 'payments-prod'],
    ['Payments', 'payments-prod'],
    ['pay', 'payments-prod'],
    ['ledger-p', 'ledger-prod'],
    // A typo still wins over a beginning: one edit from `search`.
    ['serch', 'search'],
  ])('suggests %s -> %s', (typed, expected) => {
    expect(closestMatch(typed, workspaceIds)).toBe(expected);
  });

  it.each([
    ['ledger', 'begins two ids (ledger-prod, ledger-dev): no guess between them'],
    ['pa', 'too short to say which id was meant'],
    ['prod', 'ends ids, begins none'],
    ['', 'empty'],
  ])('suggests nothing for %s (%s)', (typed) => {
    expect(closestMatch(typed, workspaceIds)).toBeUndefined();
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
