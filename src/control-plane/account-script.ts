/**
 * The script of /account and /device, served as /account/assets/account.js after @simplewebauthn/browser
 * (its UMD bundle, global `SimpleWebAuthnBrowser`): it runs the passkey ceremonies against the account
 * routes and then goes where `<main data-next>` says (`device`: back to /device with the code typed).
 * Plain browser JavaScript, kept here as text so the control plane serves it without a build step.
 */
export const ACCOUNT_SCRIPT = String.raw`'use strict';
(function () {
  var main = document.querySelector('main');
  var problem = document.getElementById('problem');
  var webauthn = window.SimpleWebAuthnBrowser;
  function say(text) {
    if (!problem) return;
    problem.textContent = text || '';
    problem.hidden = !text;
  }
  var expected = main.dataset.origin;
  if (expected && location.origin !== expected) {
    say('Passkeys of this control plane work only at ' + expected + ': open this page there.');
  } else if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    say('This browser cannot use passkeys (WebAuthn).');
  }
  function next() {
    if (main.dataset.next === 'device') {
      var code = document.getElementById('code');
      return '/device' + (code && code.value.trim() ? '?code=' + encodeURIComponent(code.value.trim().toUpperCase()) : '');
    }
    return main.dataset.next || location.pathname + location.search;
  }
  async function post(path, body) {
    var answer = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    var data = await answer.json().catch(function () { return {}; });
    if (!answer.ok) throw new Error((data.error && data.error.message) || 'The control plane answered ' + answer.status + '.');
    return data;
  }
  function explain(error) {
    var name = (error && error.name) || '';
    if (name === 'NotAllowedError') return 'The passkey prompt was closed or timed out. Try again.';
    if (name === 'InvalidStateError') return 'This device already holds a passkey for this account.';
    if (name === 'SecurityError') return 'This browser refused the passkey for this address: open the page at ' + expected + '.';
    return (error && error.message) || String(error);
  }
  function run(button, work) {
    button.disabled = true;
    say('');
    work().then(function () {
      location.assign(next());
    }, function (error) {
      button.disabled = false;
      say(explain(error));
    });
  }
  // Each ceremony: where its options come from, the browser's step, and where its answer goes.
  var ceremonies = {
    register: ['/account/register/options', 'startRegistration', '/account/register/verify'],
    'add-passkey': ['/account/passkeys/options', 'startRegistration', '/account/register/verify'],
    'sign-in': ['/account/signin/options', 'startAuthentication', '/account/signin/verify'],
  };
  function ceremony(button, kind, body) {
    var steps = ceremonies[kind];
    run(button, async function () {
      var started = await post(steps[0], body);
      var response = await webauthn[steps[1]]({ optionsJSON: started.options });
      await post(steps[2], { response: response });
    });
  }
  var register = document.getElementById('register');
  if (register) {
    register.addEventListener('submit', function (event) {
      event.preventDefault();
      ceremony(register.querySelector('button'), 'register', { name: document.getElementById('name').value.trim() });
    });
  }
  document.querySelectorAll('button[data-action]').forEach(function (button) {
    button.addEventListener('click', function () {
      ceremony(button, button.dataset.action, {});
    });
  });
})();
`;
