/** The assistant's words on the Chat page: commands in backticks read as code, never as raw backticks. */
import { describe, expect, it } from '@jest/globals';
import { withInlineCode } from '../../shared/web/pages/ui.ts';

const render = async (text: string) => String(await withInlineCode(text));

describe('withInlineCode', () => {
  it('shows a backtick span as code and keeps the rest as text', async () => {
    expect(await render('Set it with `handoff credentials set MAIL_PASSWORD`, then resume.')).toBe(
      'Set it with <code>handoff credentials set MAIL_PASSWORD</code>, then resume.',
    );
  });

  it('escapes markup inside and outside the code, and leaves a lone backtick as it is', async () => {
    expect(await render('<b>hi</b> `<script>x</script>` and a lone ` tick')).toBe(
      '&lt;b&gt;hi&lt;/b&gt; <code>&lt;script&gt;x&lt;/script&gt;</code> and a lone ` tick',
    );
  });
});
