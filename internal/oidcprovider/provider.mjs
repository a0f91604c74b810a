// Starts node's oidc-provider with config.mjs on a free port of 127.0.0.1
// and prints one line of JSON to standard output: {"issuer": "http://127.0.0.1:PORT"}.
// It signs every user in as alice, and grants what each client asks for,
// without a page: the interaction URL answers at once. It exits when its
// standard input closes (the test that started it has gone).
import http from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import { configuration } from './config.mjs';

// signingKey is a new private key as a JWK, for alg ES256 or RS256.
function signingKey(alg) {
  const { privateKey } = alg === 'ES256'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), alg, use: 'sig', kid: `${alg}-${randomBytes(4).toString('hex')}` };
}

// autoSignIn finishes an interaction: login as alice, then consent to
// every scope and resource asked for.
async function autoSignIn(provider, req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const missing = prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const keys = { keys: [signingKey('ES256'), signingKey('RS256')] };
let provider;
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    autoSignIn(provider, req, res).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
    return;
  }
  provider.callback()(req, res);
});
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = new Provider(issuer, configuration(keys, [randomBytes(32).toString('hex')]));
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
