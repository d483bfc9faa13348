// autocannon ships no types: each benchmark states the part of its API it uses.
declare module "autocannon";
