// DEFAULT_DENY, name by name: each kind of secret file refused in every spelling a workspace
// may hold it under (any case, any depth, an editor's or a person's backup copy), and the
// ordinary files beside them, whose names only look alike, still read.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, assertThrowsCode, makeFixture } from '../helpers.mjs'

const { createAgentToolkit, ToolCatalog, DEFAULT_DENY } = pkg

/** One file for each kind of secret the default list covers, as a workspace would hold it. */
const SECRETS = [
  // dotenv files, under their own names and others
  '.env',
  '.env.local',
  '.env.production',
  'prod.env',
  '.envrc',
  '.dev.vars',
  '.dev.vars.staging',
  // private keys, key stores and certificates with keys
  'id_rsa',
  'id_rsa.pub',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'deploy_rsa',
  'github_ed25519',
  'ci_ecdsa',
  'legacy_dsa',
  'cert.pem',
  'tls.key',
  'id.pfx',
  'b.p12',
  'AuthKey_ABC123.p8',
  'server.ppk',
  'release.jks',
  'debug.keystore',
  '.ssh/config',
  '.gnupg/private-keys-v1.d/key.txt',
  '.git/config',
  // tools' credentials
  '.aws/credentials',
  '.docker/config.json',
  '.kube/config',
  'kubeconfig',
  'staging.kubeconfig',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.gem/credentials',
  '.config/gh/hosts.yml',
  '.config/gcloud/legacy_credentials/me/adc.json',
  'application_default_credentials.json',
  'credentials.json',
  'client_secret_123.apps.googleusercontent.com.json',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.htpasswd',
  '.vault-token',
  '.s3cfg',
  '.boto',
  '.terraformrc',
  'terraform.rc',
  // applications' secrets
  'secrets.yml',
  'secrets.yaml',
  'secrets.json',
  'secrets.toml',
  'terraform.tfvars',
  'prod.auto.tfvars',
  'vars.tfvars.json',
  'terraform.tfstate',
  'terraform.tfstate.backup',
  'client.ovpn',
  '.bash_history',
  '.zsh_history',
  '.psql_history',
]

/** Files whose names look like secrets' and are not. */
const ORDINARY = [
  '.env.example',
  '.env.sample',
  '.envelope',
  'src/env.ts',
  'docs/environment.md',
  'config/environment.ts',
  'src/key.ts',
  'keyboard.md',
  'src/keys.json',
  'monkey.js',
  'docs/pem-format.md',
  'src/crypto/rsa.ts',
  'src/ssh.ts',
  'src/secrets.ts',
  'lib/secrets.py',
  'src/credentials.ts',
  'config.json',
  'kube/deploy.yaml',
  'main.tf',
  'variables.tf',
  'terraform.tfvars.example',
  'history.md',
  'src/history.ts',
  '.gitignore',
  '.github/workflows/ci.yml',
  'notes.md~',
  'src/main.ts.bak',
  'Dockerfile',
]

/** `rel` with its last name changed by `change`. */
function renamed(rel, change) {
  const slash = rel.lastIndexOf('/') + 1
  return rel.slice(0, slash) + change(rel.slice(slash))
}

/** The spellings of a secret at `rel` that must all be refused. */
function spellingsOf(rel) {
  return [
    rel,
    `deep/er/${rel}`,
    `UPPER/${rel.toUpperCase()}`,
    renamed(rel, (name) => `${name}~`),
    renamed(rel, (name) => `${name}.bak`),
    renamed(rel, (name) => `${name}.old`),
    renamed(rel, (name) => `${name}.orig`),
    renamed(rel, (name) => `#${name}#`),
  ]
}

const fx = makeFixture()
after(() => fx.cleanup())
for (const rel of SECRETS.flatMap(spellingsOf)) fx.write(rel, `SECRET in ${rel}\n`)
// Issue 17's own examples, in a directory of their own so that no two names differ by case only.
const MIXED_CASE = ['mixed/CERT.PEM', 'mixed/tls.KEY', 'mixed/id.PFX', 'mixed/b.P12', 'mixed/.ENV']
for (const rel of MIXED_CASE) fx.write(rel, `SECRET in ${rel}\n`)
const EXAMPLE_COPIES = ['.env.example~', '.env.example.bak', '#.env.sample#']
for (const rel of EXAMPLE_COPIES) fx.write(rel, 'API_KEY=\n')
for (const rel of ORDINARY) fx.write(rel, `ordinary ${rel}\n`)

const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())

describe('DEFAULT_DENY refuses every spelling of a secret', () => {
  for (const secret of SECRETS) {
    test(secret, () => {
      for (const rel of spellingsOf(secret)) {
        assertThrowsCode(() => toolkit.readFileSync({ path: rel }), 'POLICY_DENIED', rel)
      }
    })
  }

  test("issue 17's mixed-case names: CERT.PEM, tls.KEY, id.PFX, b.P12, .ENV", async () => {
    for (const rel of MIXED_CASE) {
      assertThrowsCode(() => toolkit.readFileSync({ path: rel }), 'POLICY_DENIED', rel)
      const viaCatalog = () => ToolCatalog.read_file.execute({ path: rel }, { workspaceRoot: fx.ws })
      await assertRejectsCode(viaCatalog, 'POLICY_DENIED', rel)
    }
  })

  test('copies of .env.example and .env.sample are refused: an edit in progress may hold real values', () => {
    for (const rel of EXAMPLE_COPIES) {
      assertThrowsCode(() => toolkit.readFileSync({ path: rel }), 'POLICY_DENIED', rel)
    }
  })
})

describe('DEFAULT_DENY reads ordinary files whose names look alike', () => {
  for (const rel of ORDINARY) {
    test(rel, async () => {
      const expected = fs.readFileSync(path.join(fx.ws, rel), 'utf8')
      assert.equal(toolkit.readFileSync({ path: rel }).content, expected)
      const viaCatalog = await ToolCatalog.read_file.execute({ path: rel }, { workspaceRoot: fx.ws })
      assert.equal(viaCatalog.content, expected)
    })
  }

  test('it is a frozen list of strings, every one a valid rule', () => {
    assert.ok(Object.isFrozen(DEFAULT_DENY))
    assert.ok(DEFAULT_DENY.every((rule) => typeof rule === 'string'))
    const explicit = createAgentToolkit({ workspaceRoot: fx.ws, deny: [...DEFAULT_DENY] })
    assertThrowsCode(() => explicit.readFileSync({ path: '.envrc' }), 'POLICY_DENIED', '.envrc')
    explicit.close()
  })
})
