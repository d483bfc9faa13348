// s3rver ships no types: tests/storage-s3rver.ts states the part of its API it uses.
declare module "s3rver";
