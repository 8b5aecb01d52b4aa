// The `html` tag of every server-rendered page: what it escapes, what it keeps, and how lists and empty values render.
import { expect } from 'chai';
import { html, join, jsonScript, markup } from '../../src/http/pages/html.ts';

const HOSTILE = `<script>alert('x')</script> & "Sons"`;

describe('html: safe HTML by construction', () => {
  it('escapes text in element content', () => {
    expect(markup(html`<p>${HOSTILE}</p>`)).to.equal('<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Sons&quot;</p>');
  });

  it('escapes both quotes in attribute values, so a value cannot end its attribute', () => {
    expect(markup(html`<input value="${'" autofocus onfocus="alert(1)'}">`)).to.equal('<input value="&quot; autofocus onfocus=&quot;alert(1)">');
    expect(markup(html`<a title='${"' onclick='alert(1)"}'>x</a>`)).to.equal(`<a title='&#39; onclick=&#39;alert(1)'>x</a>`);
  });

  it('keeps nested html as markup and escapes what is inside it once', () => {
    const inner = html`<strong>${'<b>'}</strong>`;
    expect(markup(html`<p>${inner} and ${'<i>'}</p>`)).to.equal('<p><strong>&lt;b&gt;</strong> and &lt;i&gt;</p>');
  });

  it('joins arrays with nothing between, escaping text items and keeping markup items', () => {
    expect(markup(html`<ul>${['a', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`)).to.equal('<ul><li>a</li><li>b</li></ul>');
    expect(markup(html`${['<', html`<br>`, ['&', 1]]}`)).to.equal('&lt;<br>&amp;1');
    expect(markup(join([html`<b>1</b>`, '<2>'], html`<br>`))).to.equal('<b>1</b><br>&lt;2&gt;');
    expect(markup(join([], html`<br>`))).to.equal('');
  });

  it('writes numbers as they are and null and undefined as nothing', () => {
    expect(markup(html`<td>${0}</td><td>${-1.5}</td><td>${null}</td><td>${undefined}</td>`)).to.equal('<td>0</td><td>-1.5</td><td></td><td></td>');
  });

  it('leaves the template\'s own literal text as it is written', () => {
    expect(markup(html`<p class="a">&amp; ${'x'} &lt;</p>`)).to.equal('<p class="a">&amp; x &lt;</p>');
    expect(markup(html``)).to.equal('');
  });

  it('writes JSON for a script element with nothing that could end it or start markup, and that parses back', () => {
    const value = { name: '</script><script>alert(1)</script>', amp: 'a & b' };
    const out = markup(jsonScript('data', value));
    expect(out).to.match(/^<script type="application\/json" id="data">[^<>&]*<\/script>$/);
    const json = out.slice(out.indexOf('>') + 1, out.lastIndexOf('</script>'));
    expect(JSON.parse(json)).to.deep.equal(value);
  });

  it('does not take an object that is not SafeHtml: a type error, and refused if it gets past the checker', () => {
    const forged = { toString: () => '<b>' };
    // @ts-expect-error: only SafeHtml, text, numbers, null, undefined and arrays of them are accepted.
    expect(() => html`${forged}`).to.throw(TypeError);
    // @ts-expect-error: page helpers take SafeHtml, and a string is not markup.
    expect(() => markup('<b>')).to.throw(TypeError);
  });
});
