// Who pushed, as the git server authenticated them. A commit's author and
// committer are whatever the pusher typed; these variables are set by the
// server from the account that opened the connection, so a pusher cannot type
// them.

/** The variables each server sets in its hooks' environment. */
const AUTHENTICATED = ['GL_USERNAME', 'GITEA_PUSHER_NAME', 'GITEA_PUSHER_EMAIL', 'GITHUB_USER_LOGIN'] as const;

export interface Pusher {
  /** The variable the name came from, e.g. GL_USERNAME. */
  source: string;
  name: string;
}

/** The authenticated pusher's names, empty where the server gives none. */
export function authenticatedPusher(env: NodeJS.ProcessEnv): Pusher[] {
  return AUTHENTICATED.flatMap((source) => (env[source]?.trim() ? [{ source, name: env[source]!.trim() }] : []));
}

/** The warning owed where owners.agents is all there is: no signatures, no authenticated pusher. */
export const TYPED_IDENTITY =
  "owners.agents rests on the identities committers typed (author, committer, Co-authored-by): there is no owners.signers and no pusher authenticated by the server, so an agent that writes a person's name gets through; set owners.signers, or run the hook on a server that authenticates pushers (GitLab, Gitea, GitHub Enterprise Server)";
