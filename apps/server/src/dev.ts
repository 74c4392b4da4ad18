// `npm run dev`: the server in development mode (NODE_ENV=development trusts the dev servers' origins, see
// http/auth.ts), set here so that the script works the same on every platform.
process.env.NODE_ENV ||= 'development';
await import('./main');

export {};
