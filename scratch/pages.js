require('ts-node/register/transpile-only');
