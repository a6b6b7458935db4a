-- The table of the pipeline workflows (examples/pipeline-submit.json, examples/pipeline-deliver.json).
-- Add work with: INSERT INTO gen_prompts (kind, model, prompt, size, email) VALUES ('image', 'alpha-image-2.5', 'a lighthouse at dawn', '1024x1024', 'you@example.com');
CREATE TABLE IF NOT EXISTS gen_prompts (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL DEFAULT 'image' CHECK (kind IN ('image', 'video')),
  model        text NOT NULL,
  prompt       text NOT NULL,
  size         text,                -- images: WxH (default 1024x1024)
  seconds      integer,             -- videos (gamma family): 6, 8, 10, 12 or 15 (default 8)
  email        text NOT NULL,       -- who gets the mail
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'submitting', 'submitted', 'done', 'failed')),
  task_id      text,                -- written as soon as the gateway accepted the submission
  origin       text,                -- the origin that created a video task (base or video)
  object_key   text,                -- where the result is in the bucket
  error        text,                -- why the row failed (the gateway's message)
  lease_until  timestamptz,         -- a deliver run holds the row until then
  submitted_at timestamptz,
  done_at      timestamptz,
  mailed_at    timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS gen_prompts_status ON gen_prompts (status, id);
