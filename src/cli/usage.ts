/**
 * What `pi-quests COMMAND --help` prints, one text a command: the command table (main.ts) and
 * the overview read them without loading a command's code. Each starts `Usage: pi-quests SYNOPSIS`.
 */

export const LINT_USAGE = `Usage: pi-quests lint PATH...

Checks each quest file or pack folder against the quest format (docs/quest-format.md):
schemas, regexes, duplicate ids, unknown or cyclic requires, sandbox folders, paths
that can never resolve inside their root; and a pack's plays (solutions/QUEST/pass.yaml
and fail-NAME.yaml, which pi-quests test plays). Prints one file:line:column message a
problem, with the closest name for a typo.

Exit codes: 0 all valid, 3 something is invalid.
`;

export const CHECK_USAGE = `Usage: pi-quests check QUEST.yaml|PACK_DIR [options]

Evaluates one quest against a workspace and prints a line a check.

Options:
  --quest ID             the quest to check (needed when a pack has more than one)
  --cwd DIR              the quest workspace (default: the current folder)
  --baseline REV         the commit git checks compare against (default: the one the
                         --events log recorded at the quest's activation, else HEAD)
  --events FILE.jsonl    recorded events, one JSON object a line
  --session FILE.jsonl   a Pi session file, turned into the same events (a line it
                         cannot read is a FILE:LINE warning; the rest is checked)
  --data-dir DIR         where verifier evidence goes, outside the workspace
                         (default: {agent_dir}/quests)
  --confirm CHECK_ID     answer yes to a confirm check (repeatable)
  --review-model P/ID    the model a review check's reviewer uses when the check names
                         none (resolved through Pi's models and auth in {agent_dir})
  --json                 print one JSON object instead of text
  -h, --help             this text

Exit codes: 0 pass, 1 fail, 2 pending, 3 invalid input (a quest file, an events file, a flag).
`;

export const TEST_USAGE = `Usage: pi-quests test PACK_DIR [options]
       pi-quests test --merge SHARD.json... [--reporter NAME]

Plays every quest's solutions in the real Pi (offline, with pi-quests' scripted model):
solutions/QUEST/pass.yaml and each pass-NAME.yaml (another honest way) must end with the quest
complete, each fail-NAME.yaml with it not complete. The required quests' pass plays run first,
in the same workspace.

Options:
  --quest ID             only this quest's plays (repeatable: these quests' plays)
  --chapter C            only the plays of this chapter's quests (repeatable): C is the
                         chapter's title as the quests give it, or its number (1 for the
                         chapter of the pack's first quest, in the order chapters first appear)
  --reporter NAME        text (default), json, junit or tap
  --jobs N               plays run side by side (default: the number of cores)
  --strict               a quest without solutions/QUEST/pass.yaml fails the run
  --advised-order        play only each quest's pass play, all in one workspace in pack
                         order: every quest after all the quests before it, as a learner
                         who follows the pack's order (not only after its requires)
  --keep                 keep the plays' folders (one a play, named QUEST--PLAY), and
                         print where they are
  --shard K/N            play only shard K of N (1 <= K <= N): a deterministic share of the
                         chains (a play with the pass plays of what it requires, never split;
                         the advised order is one chain, in shard 1), the same on any machine.
                         Every play is in exactly one shard; unproven quests are said by shard 1.
                         Each shard's report names its shard (the JUnit suite, the JSON "shard")
  --merge                join the JSON reports of a run's N shards (--shard K/N --reporter json)
                         into one report, printed with --reporter, exiting as one run would.
                         Refused (exit 3, naming the file): reports of another pack, pi-quests,
                         Pi, --strict or selection of plays, a shard missing or given twice
  -h, --help             this text

Pi: PI_QUESTS_PI names Pi's cli.js; else the @earendil-works/pi-coding-agent installed with
pi-quests; else the pi on PATH.

Exit codes: 0 every play ended as its name says, 1 one did not, 3 invalid input.
`;

export const SANDBOX_USAGE = `Usage: pi-quests sandbox QUEST.yaml|PACK_DIR [--quest ID] DIR

Makes DIR the workspace a learner would start the quest in: its sandbox template copied, a
git repository, the template committed as the baseline (as /quest start makes it; the quests
it requires are not played). DIR must be absent or empty. A quest without a sandbox starts in
any folder: DIR is left empty.

Options:
  --quest ID    the quest (needed when a pack has more than one)
  -h, --help    this text

Exit codes: 0 set up, 1 the setup failed (DIR is left as it was), 3 invalid input (a quest
file, a flag, DIR not empty).
`;

export const PLAY_USAGE = `Usage: pi-quests play PACK_DIR [options]

Opens the real Pi on the pack in a fresh workspace, to try it by hand.

Options:
  --quest ID             open on this quest; the quests it requires are completed first
                         by their pass plays (solutions/QUEST/pass.yaml), headless
  --solution FILE        offline, with pi-quests' scripted model giving this play's
                         replies (its steps are printed first); without it, your own model
  --keep                 keep the workspace and agent dir, and print where they are
  -h, --help             this text
`;

export const RECEIPTS_USAGE = `Usage: pi-quests receipts [options]

Lists each command check's newest receipt in a workspace, with who wrote it (pi: pi-quests in a
Pi session; cli: pi-quests check, whose receipts a Pi session never reuses), and whether it
still holds: fresh (the files are as they were when it ran), stale (they changed) or incomplete
(it was interrupted, cancelled, skipped, or has no fingerprint). Runs nothing; finds runs a
crashed pi-quests check left as running and records them as interrupted.

Options:
  --cwd DIR        the workspace (default: the current folder)
  --data-dir DIR   where receipts are kept (default: {agent_dir}/quests)
  --json           print one JSON object
  -h, --help       this text

Exit codes: 0 listed, 3 invalid input.
`;

export const PACKS_USAGE = `Usage: pi-quests packs [--cwd DIR] [--json]

Lists the quest packs Pi would offer in DIR (default: the current folder): the built-in
pack, the packs of the Pi packages installed for the user and the project (pi install,
pi install -l; their package.json's pi.quests), the project's .pi/quests/ when Pi trusts
the project, or PI_QUESTS_PACK's pack alone. Pi's agent folder is PI_CODING_AGENT_DIR
(default ~/.pi/agent); Pi is found as pi-quests test finds it (PI_QUESTS_PI, beside
pi-quests, or on PATH). A pack that is not offered is a problem with its file and line.

Options:
  --cwd DIR   the folder Pi would run in
  --json      {"packs": [{"id", "title", "source", "path", "quests"}], "problems": [...]}

Exit codes: 0 listed (problems included), 3 invalid arguments.
`;

export const INIT_USAGE = `Usage: pi-quests init DIR

Creates a new quest pack in DIR, ready to publish as a Pi package: package.json (pi.quests,
pi.extensions: [], the keyword pi-package; pi-quests and Pi as peer dependencies),
pack.yaml, one quest with a sandbox, a pass and a fail play, a README with the one
command learners install it with, and a GitHub Actions workflow that runs pi-quests test
in shards. It passes pi-quests lint DIR and pi-quests test DIR as created.

Exit codes: 0 created, 3 DIR is not absent or empty (nothing is written).
`;
