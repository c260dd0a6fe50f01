import aws4 from 'aws4';
import type { ProviderConfig } from '../provider-settings.js';
import { ServiceError } from '../../errors/index.js';

/** The AWS credentials a Bedrock call is signed with. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A Bedrock call before signing: where it goes, the provider's fixed headers, and the body to send. */
export interface UnsignedCall {
  origin: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** The SigV4 signing name of Bedrock Runtime (its endpoints are `bedrock-runtime.<region>.amazonaws.com`). */
const SERVICE = 'bedrock';

/**
 * The region a provider signs for and, without a `baseUrl`, calls: its `region`, else `AWS_REGION` /
 * `AWS_DEFAULT_REGION` as the AWS SDKs read them, else us-east-1.
 */
export function regionOf(provider: ProviderConfig, env: NodeJS.ProcessEnv = process.env): string {
  return provider.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
}

/**
 * The provider's credentials: its `credentials`, else the AWS SDKs' environment variables. Missing ones
 * make the route unusable, said plainly (400 model_not_configured) rather than sent unsigned.
 */
export function credentialsOf(provider: ProviderConfig, env: NodeJS.ProcessEnv = process.env): AwsCredentials {
  const configured = provider.credentials;
  const { accessKeyId, secretAccessKey, sessionToken } = configured ?? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN };
  if (!accessKeyId || !secretAccessKey) {
    const where = configured ? '"credentials" needs both accessKeyId and secretAccessKey' : 'set "credentials" or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
    throw new ServiceError('model_not_configured', `The Bedrock provider has no AWS credentials: ${where}`, { param: 'model' });
  }
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

/**
 * Signs the call with AWS Signature Version 4 (the well-kept `aws4` signer: canonical request over
 * method, path — each segment encoded again, as SigV4 asks of every service but S3 —, signed headers
 * and the body's SHA-256). Signed per call: the date and the body are part of the signature.
 *
 * @example
 * signBedrockCall({ origin: 'https://bedrock-runtime.us-east-1.amazonaws.com', path: '/model/m/converse', headers, body: '{}' }, provider)
 * // → { …headers, Host, 'X-Amz-Date', Authorization: 'AWS4-HMAC-SHA256 Credential=…' }
 */
export function signBedrockCall(call: UnsignedCall, provider: ProviderConfig): Record<string, string> {
  const request = { host: new URL(call.origin).host, path: call.path, method: 'POST', service: SERVICE, region: regionOf(provider), headers: Object.assign({}, call.headers), body: call.body, extraHeadersToIgnore: unsignedHeaders };
  const signed = aws4.sign(request, credentialsOf(provider));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers ?? {})) if (!sentByUndici.has(name.toLowerCase())) headers[name] = String(value);
  return headers;
}

/** Content-Length need not be signed (SigV4 requires only host and x-amz-date); undici sets it. */
const unsignedHeaders = { 'content-length': true };

/**
 * Headers aws4 adds that undici sends itself, with the same values (the origin's host, the body's length).
 * Left out because every header a call carries is taken for a credential and redacted from what the
 * provider answers (upstream/redact-secrets.ts): a model that writes its endpoint's host name must not
 * come back with `[redacted]` in its text.
 */
const sentByUndici = new Set(['host', 'content-length']);
