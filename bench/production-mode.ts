/**
 * Imported first by run.ts: Grafast reads GRAPHILE_ENV when it loads, and the benchmark should
 * measure the production mode that a deployment runs in (without the notice it prints when unset).
 */
process.env.GRAPHILE_ENV ??= 'production';
