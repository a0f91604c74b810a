// The configuration of node's oidc-provider (9.x) that docs/auth.md shows
// as "A standards-following provider", and the tests start (provider.mjs):
// access tokens for the resource each request names (RFC 8707), as JWTs
// (RFC 9068) or opaque tokens checked by introspection (RFC 7662).
//
// configuration(jwks, cookieKeys) returns the options of `new Provider(issuer,
// options)`; jwks are its signing keys, cookieKeys the keys of its cookies.

import { errors } from 'oidc-provider';

// The scopes a resource server (toolexec) grants.
const toolScopes = 'tools.call tools.admin';

// A resource is a toolexec endpoint on this machine: http(s), loopback
// host, no fragment or query.
function isResource(indicator) {
  const url = URL.parse(indicator);
  return url !== null && ['http:', 'https:'].includes(url.protocol)
    && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
    && url.hash === '' && url.search === '';
}

export function configuration(jwks, cookieKeys) {
  return {
    jwks,
    cookies: { keys: cookieKeys },
    clients: [
      // An MCP client signing a user in: authorization code with PKCE, a
      // public client on any loopback port (RFC 8252).
      {
        client_id: 'mcp-client',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
      // Agents acting on their own: client credentials, JWT access tokens
      // (brief-agent's expire after 2 s) or opaque ones (opaque-agent).
      ...['agent', 'brief-agent', 'opaque-agent'].map((id) => ({
        client_id: id,
        client_secret: `${id}-secret`,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      })),
      // toolexec itself, to introspect opaque tokens.
      {
        client_id: 'toolexec',
        client_secret: 'toolexec-secret',
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
    ],
    // A client may register a default_resource: the audience of the tokens
    // it asks for without a resource parameter, as the Go SDK's client
    // credentials handler does.
    extraClientMetadata: {
      properties: ['default_resource'],
      validator(ctx, key, value) {
        if (value !== undefined && !isResource(value)) {
          throw new errors.InvalidClientMetadata('default_resource must be a toolexec endpoint');
        }
      },
    },
    features: {
      devInteractions: { enabled: false }, // provider.mjs signs alice in
      clientCredentials: { enabled: true },
      registration: { enabled: true }, // RFC 7591, open
      revocation: { enabled: true },
      introspection: {
        enabled: true,
        // Only toolexec may introspect, and every access token.
        allowedPolicy: async (ctx, client) => client.clientId === 'toolexec',
      },
      resourceIndicators: {
        enabled: true,
        // A request without a resource gets one for the client's
        // default_resource, else none.
        defaultResource: async (ctx, client, oneOf) => oneOf ?? client.default_resource,
        // The authorization code's resource is the token request's too.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, indicator, client) => {
          if (!isResource(indicator)) {
            throw new errors.InvalidTarget();
          }
          return {
            audience: indicator,
            scope: toolScopes,
            accessTokenTTL: client.clientId === 'brief-agent' ? 2 : 300,
            accessTokenFormat: client.clientId === 'opaque-agent' ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@example.com` }),
    }),
    scopes: ['openid', 'offline_access'],
    ttl: { IdToken: 300, Interaction: 300, Session: 600, Grant: 600 }, // access tokens: accessTokenTTL above
    pkce: { required: () => true },
    clientBasedCORS: () => true,
  };
}
