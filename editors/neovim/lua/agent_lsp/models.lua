-- :AgentModel: a picker over agent/models; the choice is sent as
-- agent/prompt's `model` from the next prompt on, and remembered per
-- workspace in stdpath('data')/agent_lsp/models.json.
local compat = require('agent_lsp.compat')
local protocol = require('agent_lsp.protocol')

local M = {}

local function file()
  return vim.fn.stdpath('data') .. '/agent_lsp/models.json'
end

local function load()
  local f = io.open(file(), 'r')
  if not f then
    return {}
  end
  local s = f:read('*a')
  f:close()
  local ok, t = pcall(vim.json.decode, s)
  return ok and type(t) == 'table' and t or {}
end

--- The model chosen for workspace root, or nil (the server's default).
function M.get(root)
  return root and load()[root] or nil
end

--- Remembers model for root (nil forgets it); written whole through a
--- temporary file, so a crash never leaves half a file.
function M.set(root, model)
  local t = load()
  t[root] = model
  vim.fn.mkdir(vim.fn.fnamemodify(file(), ':h'), 'p')
  local tmp = file() .. '.tmp'
  local f = assert(io.open(tmp, 'w'))
  f:write(vim.json.encode(t))
  f:close()
  assert(vim.loop.fs_rename(tmp, file()))
end

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

--- Asks the server for its models and lets the user pick one (or picks
--- `name` directly).
function M.pick(client, name)
  local root = client.config.root_dir
  if name and name ~= '' then
    M.set(root, name)
    notify('model for the next prompts: ' .. name)
    return
  end
  compat.request(client, protocol.MODELS, vim.empty_dict(), function(err, res)
    if err or type(res) ~= 'table' then
      notify('agent/models failed: ' .. tostring(err and err.message), vim.log.levels.ERROR)
      return
    end
    if res.error then
      notify('the endpoint did not list its models: ' .. tostring(res.error), vim.log.levels.WARN)
    end
    local cur = M.get(root) or res.current
    local items = {}
    for _, m in ipairs(res.models or {}) do
      table.insert(items, m)
    end
    if #items == 0 and res.current then
      items = { { id = res.current } }
    end
    vim.ui.select(items, {
      prompt = 'Model for the next prompts (now ' .. tostring(cur) .. ')',
      kind = 'agent_lsp.model',
      format_item = function(m)
        local s = m.id
        if m.contextWindow then
          s = s .. (' (%dk context)'):format(math.floor(m.contextWindow / 1024))
        end
        return m.id == cur and s .. ' ✓' or s
      end,
    }, function(m)
      if m then
        M.set(root, m.id)
        notify('model for the next prompts: ' .. m.id)
      end
    end)
  end)
end

return M
