/** Which hosts a workspace-scoped key may not name: this machine and private networks, in every spelling. */
import { describe, expect, it } from '@jest/globals';
import { isPrivateHost, isPrivateUrl, reachesPrivateHost } from '../../shared/access/addresses.ts';

describe('isPrivateHost', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '2130706433',
    '0x7f.1',
    '0177.0.0.1',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '::1',
    '[::1]',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    'fe80::1',
    'fd12:3456::1',
    'localhost',
    'LOCALHOST.',
    'api.localhost',
    'printer.local',
    'metadata.google.internal',
    'intranet',
    '',
  ])('%s is this machine or a private network', (host) => {
    expect(isPrivateHost(host)).toBe(true);
  });

  it.each(['imap.fastmail.com', 'mcp.linear.app', '8.8.8.8', '172.32.0.1', '169.255.0.1', '2606:4700::1'])(
    '%s is public',
    (host) => {
      expect(isPrivateHost(host)).toBe(false);
    },
  );
});

describe('isPrivateUrl', () => {
  it('reads the host of a URL, ports and brackets included, and counts an unreadable URL as private', () => {
    expect(isPrivateUrl('http://127.0.0.1:8080/mcp')).toBe(true);
    expect(isPrivateUrl('http://[::1]:3000/')).toBe(true);
    expect(isPrivateUrl('http://169.254.169.254/latest/meta-data/')).toBe(true);
    expect(isPrivateUrl('https://user@localhost/')).toBe(true);
    expect(isPrivateUrl('not a url')).toBe(true);
    expect(isPrivateUrl('https://api.githubcopilot.com/mcp/')).toBe(false);
  });
});

describe('reachesPrivateHost', () => {
  it('counts a name that resolves to this machine, and judges one that does not resolve by its spelling', async () => {
    expect(await reachesPrivateHost('localhost')).toBe(true);
    expect(await reachesPrivateHost('mcp.tickets.example')).toBe(false);
  });
});
