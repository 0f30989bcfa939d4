/** Deploying: the control plane's API protocol and its client, app and environment ids, artifacts and their verification. The folder's entry: what the rest of the code base imports of it. */
export { type BoundCredential, ControlClient, type ControlOutcome, type FetchLike, networkFailure } from './client.ts';
export { type DomainInfo, type DomainState, hostnameProblem, normalizeHostname, verificationName, verificationValue } from './domains.ts';
export type { ControlPlaneHost, CredentialRead, CredentialStore, StoredCredential } from './host.ts';
export { readIdentity, writeIdentity } from './identity.ts';
export { APP_ID, ARTIFACT_ID, controlUrlProblem, deployEnvironment, ENV_NAME, ENV_VALUE_MAX_BYTES, type Environment, envScope, type EnvScope, hostedOrigin, hostedTarget, originProblem, RECEIPT_ID, SERVICE_TOKEN, SERVICE_TOKEN_ID, SESSION_TOKEN, TOKEN_NAME } from './ids.ts';
export { isProofPublicKey, newProofKey, parseProof, PROOF_WINDOW_MS, proofMessage, type ProofPublicKey, proofTarget, signProof } from './proof.ts';
export { type AppInfo, type AppState, type BuilderInfo, CALL_CURSOR, CALL_LOG_SIZE, type CallRecord, CONTROL_PROTOCOL, type ControlError, type ControlErrorCode, DEFAULT_CONTROL_URL, type DeploymentInfo, type DeviceAuthorization, ENV_LOCAL_FORMAT, type EnvVariableInfo, INSPECT_VIEWS, type InspectAnswer, type InspectView, isInspectAnswer, isObject, type ServiceTokenInfo } from './protocol.ts';
export { type Activated, type AnswerOf, type BrowserKeyAnswer, deployRequest, isRoute, type Route, ROUTES } from './routes.ts';
export { TUNNEL_ANSWER_MAX_REQUEST_BYTES, TUNNEL_KEY_HEADER, TUNNEL_MAX_BODY_BYTES, type TunnelRequest } from './tunnel.ts';
