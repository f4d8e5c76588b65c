// Imported first by every entry point: Grafast reads GRAPHILE_ENV when it loads, and warns
// when it is unset. Production mode unless the developer asks for the extra checks.
process.env.GRAPHILE_ENV ??= process.env.NODE_ENV === 'development' ? 'development' : 'production';
