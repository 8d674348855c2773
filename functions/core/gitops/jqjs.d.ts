/** @michaelhomer/jqjs ships no types: the one function driftwatch uses. */
declare module '@michaelhomer/jqjs' {
  type JqFilter = (input: unknown) => Iterable<unknown>;
  const jq: { compile(program: string): JqFilter };
  export default jq;
}
