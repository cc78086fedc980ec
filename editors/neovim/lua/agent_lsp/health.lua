-- :checkhealth agent_lsp: the binary, its version, the configuration, the
-- endpoint and the sandbox the server would use (from `agent-lsp doctor`).
local M = {}

local function run(argv)
  local out = vim.fn.system(argv)
  return out, vim.v.shell_error
end

--- Parses `agent-lsp doctor` output into { key = value, ... }, where a key's
--- value includes its indented continuation lines.
function M.parse_doctor(out)
  local r, last = {}, nil
  for _, line in ipairs(vim.split(out or '', '\n', { plain = true })) do
    local k, v = line:match('^(%a[%a ]-):%s+(.*)$')
    if k and not line:match('^%s') then
      last = k
      if r[k] then
        r[k] = r[k] .. '\n' .. v
      else
        r[k] = v
      end
    elseif last and line:match('^%s+%S') then
      r[last] = r[last] .. '\n' .. vim.trim(line)
    end
  end
  return r
end

function M.check()
  local compat = require('agent_lsp.compat')
  local config = require('agent_lsp.config')
  local h = compat.health()
  h.start('agent_lsp')
  local v = vim.version()
  h.ok(('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch))
  local c = config.get()
  if not require('agent_lsp').configured then
    h.warn('setup() was not called', { "require('agent_lsp').setup({})" })
  end
  local problems = config.validate(c)
  if #problems == 0 then
    h.ok('configuration is valid')
  else
    for _, p in ipairs(problems) do
      h.error('configuration: ' .. p)
    end
  end

  local bin = c.cmd and c.cmd[1]
  if not bin or vim.fn.executable(bin) ~= 1 then
    h.error(('agent-lsp binary not found: %s'):format(tostring(bin)), {
      'go install github.com/agent-lsp/agent-lsp/cmd/agent-lsp@latest',
      "or set cmd = { '/path/to/agent-lsp', 'serve' } in setup()",
    })
    return
  end
  h.ok('binary: ' .. vim.fn.exepath(bin))
  local out, code = run({ bin, 'version' })
  if code == 0 then
    h.ok('version: ' .. vim.trim(out))
  else
    h.error('`' .. bin .. ' version` failed: ' .. vim.trim(out))
  end

  local argv = { bin, 'doctor' }
  local env = vim.tbl_extend('force', {}, c.cmd_env or {})
  local s = c.settings or {}
  if s.baseUrl then
    table.insert(argv, '--base-url=' .. s.baseUrl)
  end
  if s.model then
    table.insert(argv, '--model=' .. s.model)
  end
  if s.apiKey then
    env.AGENT_LSP_API_KEY = s.apiKey
  end
  -- The workspace of a running client, else the one the cwd is in.
  local root
  for _, cl in ipairs(compat.clients(require('agent_lsp').NAME)) do
    root = root or cl.config.root_dir
  end
  root = root or config.find_root(vim.loop.cwd(), c.root_markers) or vim.loop.cwd()
  table.insert(argv, '--workspace=' .. root)
  if next(env) then
    local pre = { 'env' }
    for k, val in pairs(env) do
      table.insert(pre, k .. '=' .. tostring(val))
    end
    argv = vim.list_extend(pre, argv)
  end
  out = run(argv)
  local d = M.parse_doctor(out)
  if not d.endpoint then
    h.error('`agent-lsp doctor` printed nothing usable:\n' .. out)
    return
  end
  h.info('workspace: ' .. tostring(d.workspace))
  if d.config then
    h.info('config: ' .. d.config)
  end
  if d.warning then
    h.warn(d.warning)
  end
  h.info(('endpoint: %s, model: %s'):format(d.endpoint, tostring(d.model)))
  if d['api key'] then
    h.info('api key: ' .. d['api key'])
  end
  if d.server and not d.server:match('^FAIL') and d.server:match('^ok') then
    h.ok('endpoint answers: ' .. d.server)
  else
    h.error('endpoint: ' .. tostring(d.server), { 'start the model server, or set settings.baseUrl / settings.model' })
  end
  if not d.sandbox then
    h.warn('the server reported no sandbox')
  elseif d.sandbox:match('^FAIL') then
    h.error('sandbox: ' .. d.sandbox, { 'without a sandbox the bash tool is not offered (see agent-lsp doctor)' })
  elseif d.sandbox:find('WARNING', 1, true) or d.sandbox:find('!!!', 1, true) or d.sandbox:lower():find('not confined', 1, true) then
    -- The server's own warning (a weaker layer, no confinement): say it as
    -- a warning, in its words.
    h.warn('sandbox: ' .. d.sandbox)
  else
    h.ok('sandbox: ' .. d.sandbox)
  end

  local clients = compat.clients(require('agent_lsp').NAME)
  if #clients == 0 then
    h.info('no agent_lsp client is running')
  end
  for _, cl in ipairs(clients) do
    h.ok(('client %d running, root %s'):format(cl.id, tostring(cl.config.root_dir)))
  end
end

return M
