/**
 * The lesson pane beside the editor: the steps with what is done, the shown step's text (Markdown,
 * rendered by markdown-it with raw HTML off: a lesson from a share link is a stranger's text), and
 * Check, Reset, Show the solution and Next. Loaded only for a project that has a lesson.
 */
import MarkdownIt from 'markdown-it';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { LessonSession } from './lesson-session';
import './lesson.css';

// `html: false`: tags in a lesson's text show as text; markdown-it's own link check refuses javascript: and data: URLs.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
const defaultLink = markdown.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
// A code block scrolls sideways rather than wrap; it takes the focus, so the keyboard can scroll it.
const defaultFence = markdown.renderer.rules.fence!;
markdown.renderer.rules.fence = (tokens, i, options, env, self) => defaultFence(tokens, i, options, env, self).replace(/^<pre>/, '<pre tabindex="0">');
markdown.renderer.rules.link_open = (tokens, i, options, env, self) => {
  // A link leaves the lesson in a tab of its own: the learner's workspace stays.
  tokens[i]!.attrSet('target', '_blank');
  tokens[i]!.attrSet('rel', 'noopener noreferrer');
  return defaultLink(tokens, i, options, env, self);
};

// Inline code that names one of the project's files opens it (a button the pane's click handler reads).
markdown.renderer.rules.code_inline = (tokens, i, _options, env: { files?: ReadonlySet<string> }) => {
  const text = tokens[i]!.content;
  const code = `<code>${markdown.utils.escapeHtml(text)}</code>`;
  return env.files?.has(text) ? `<button type="button" class="lesson-file" data-open="${markdown.utils.escapeHtml(text)}" title="Open ${markdown.utils.escapeHtml(text)}">${code}</button>` : code;
};

/**
 * A step's text as HTML: its first `# ` heading is the step's title, shown above it, so it is left out;
 * `code` naming one of `files` becomes a button that opens it.
 */
export function stepHtml(text: string, files: ReadonlySet<string> = new Set()): string {
  return markdown.render(text.replace(/^#[ \t]+.*$/m, ''), { files });
}

export function LessonPane({ lesson: session, files, onOpen }: { lesson: LessonSession; files: readonly string[]; onOpen(path: string): void }) {
  const [, rerender] = useState(0);
  useEffect(() => session.subscribe(() => rerender((n) => n + 1)), [session]);
  const { lesson, progress, check } = session.state;
  const step = session.step;
  const fileKey = files.join('\n');
  const html = useMemo(() => (step ? stepHtml(step.text, new Set(files)) : ''), [step?.text, fileKey]);
  const openFrom = (event: MouseEvent) => {
    const path = (event.target as Element).closest<HTMLElement>('[data-open]')?.dataset.open;
    if (path !== undefined) onOpen(path);
  };
  const heading = useRef<HTMLHeadingElement>(null);
  const shownStep = useRef(step?.id);
  // Moving to another step takes the focus to its title, so a screen reader reads the new step.
  useEffect(() => {
    if (shownStep.current !== step?.id && step) heading.current?.focus();
    shownStep.current = step?.id;
  }, [step?.id]);
  if (!lesson || !progress || !step) return null;
  const at = lesson.steps.indexOf(step);
  const next = session.next;
  const done = progress.done.includes(step.id);
  const checkOfStep = check?.step === step.id ? check : undefined;
  const hasSolution = Object.keys(step.solution).length > 0;

  return (
    <section class="lesson" aria-label="Lesson" data-testid="lesson">
      <nav class="lesson-steps" aria-label="Steps">
        <ol>
          {lesson.steps.map((s, i) => {
            const isDone = progress.done.includes(s.id);
            return (
              <li key={s.id}>
                <button type="button" class={`lesson-step${s.id === step.id ? ' current' : ''}${isDone ? ' done' : ''}`} aria-current={s.id === step.id ? 'step' : undefined} onClick={() => session.go(s.id)} title={s.title}>
                  <span class="lesson-step-mark" aria-hidden="true">
                    {isDone ? '✓' : i + 1}
                  </span>
                  <span class="lesson-step-title">{s.title}</span>
                  {isDone && <span class="visually-hidden"> (done)</span>}
                </button>
              </li>
            );
          })}
        </ol>
      </nav>
      <div class="lesson-body" tabIndex={0} aria-labelledby="lesson-step-title">
        <p class="lesson-count">
          Step {at + 1} of {lesson.steps.length}
          {done && <span class="lesson-done"> · done</span>}
        </p>
        <h2 id="lesson-step-title" ref={heading} tabIndex={-1}>
          {step.title}
        </h2>
        <div class="lesson-text" data-testid="lesson-text" onClick={openFrom} dangerouslySetInnerHTML={{ __html: html }} />
        {lesson.problems.length > 0 && (
          <details class="lesson-problems">
            <summary>{lesson.problems.length === 1 ? 'The lesson has 1 problem' : `The lesson has ${lesson.problems.length} problems`}</summary>
            <ul>
              {lesson.problems.map((p) => (
                <li key={p.file}>
                  <code>{p.code}</code> {p.message}
                </li>
              ))}
            </ul>
          </details>
        )}
      </div>
      {/* Under the text, over the buttons: seen without scrolling the step's text. */}
      {checkOfStep && <CheckResult check={checkOfStep} />}
      <div class="lesson-actions">
        {step.check && (
          <button type="button" class="primary" onClick={() => void session.check()} disabled={checkOfStep?.status === 'running'}>
            {checkOfStep?.status === 'running' ? 'Checking…' : 'Check'}
          </button>
        )}
        {Object.keys(step.start).length > 0 && (
          <button type="button" onClick={() => confirm("Reset this step? Its files go back to how the step began; your changes to them are lost.") && session.reset()} title="Its files go back to how the step began">
            Reset
          </button>
        )}
        {hasSolution && (
          <button type="button" onClick={() => confirm('Show the solution? It is written over your changes to its files.') && session.solve()} title="Write the solution's files over yours">
            Solve
          </button>
        )}
        <span class="lesson-nav">
          {at > 0 && (
            <button type="button" onClick={() => session.go(lesson.steps[at - 1]!.id)}>
              ← Back
            </button>
          )}
          {next ? (
            <button type="button" class={done || !step.check ? 'primary' : ''} onClick={() => session.go(next.id)}>
              Next →
            </button>
          ) : (
            !step.check &&
            !done && (
              <button type="button" class="primary" onClick={() => session.finish()}>
                Finish
              </button>
            )
          )}
        </span>
      </div>
    </section>
  );
}

function CheckResult({ check }: { check: NonNullable<LessonSession['state']['check']> }) {
  if (check.status === 'running')
    return (
      <p class="lesson-check" role="status">
        Checking your work…
      </p>
    );
  if (check.status === 'passed')
    return (
      <p class="lesson-check passed" role="status" data-testid="lesson-check">
        ✓ Well done: the step's check passed.
      </p>
    );
  return (
    <div class="lesson-check failed" role="status" data-testid="lesson-check">
      <p>Not yet:</p>
      <ul>
        {check.failures.slice(0, 3).map((f) => (
          <li key={f.name}>
            <strong>{f.name}</strong>: {f.message}
          </li>
        ))}
        {check.problems.slice(0, 3).map((d, i) => (
          <li key={`p${i}`}>
            <code>{d.code}</code> {d.file ? `${d.file}${d.span ? `:${d.span.line}` : ''}: ` : ''}
            {d.message}
          </li>
        ))}
        {check.failures.length === 0 && check.problems.length === 0 && <li>the check found no test to run.</li>}
      </ul>
    </div>
  );
}
