// Name resolution for tests, with no DNS: the names a test gives answer with
// their addresses, every other name fails as getaddrinfo fails for a name that
// does not exist (ENOTFOUND). So a test gives the same result on a laptop, in
// CI and in a network namespace with only loopback (`unshare --net`).
import { resolverNetwork, type Network, type Resolver } from '../../lib/crawler/site-fetcher.ts';

export const dnsError = (code: string, hostname: string) => Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, syscall: 'getaddrinfo', hostname });

/** Answers `answers[name]`; a name not listed does not exist; a name given an error code fails with it. */
export function stubResolver(answers: Record<string, string[] | { error: string }> = {}): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string) => {
    asked.push(hostname);
    const answer = answers[hostname];
    if (answer === undefined) throw dnsError('ENOTFOUND', hostname);
    if (!Array.isArray(answer)) throw dnsError(answer.error, hostname);
    return answer;
  };
  return Object.assign(resolver, { asked });
}

/** The production network (localhost per RFC 6761, DNS failures as site errors) over a stub resolver. */
export const stubNetwork = (answers: Record<string, string[] | { error: string }> = {}): Network => resolverNetwork(stubResolver(answers));
