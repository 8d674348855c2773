/**
 * Registry globs for addresses, paths and rule ids: `*` matches any run of characters (dots and
 * brackets included, so `module.db.*` covers everything in that module), `?` one character.
 */
export function globToRegExp(glob: string, flags = ''): RegExp {
  let pattern = '';
  for (const character of glob) {
    if (character === '*') pattern += '.*';
    else if (character === '?') pattern += '.';
    else pattern += character.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`, flags);
}

export function createGlobMatcher(glob: string): (text: string) => boolean {
  if (!glob.includes('*') && !glob.includes('?')) return (text) => text === glob;
  const pattern = globToRegExp(glob);
  return (text) => pattern.test(text);
}
