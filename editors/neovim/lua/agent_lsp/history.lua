-- :AgentSessions (a picker over agent/sessions) and :AgentResume (continue
-- one in this tab, its history shown in the answer buffer).
local compat = require('agent_lsp.compat')
local protocol = require('agent_lsp.protocol')
local session = require('agent_lsp.session')
local ui = require('agent_lsp.ui')

local M = {}

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

local function age(s)
  s = tonumber(s) or 0
  if s < 120 then
    return ('%ds ago'):format(s)
  elseif s < 7200 then
    return ('%dm ago'):format(math.floor(s / 60))
  elseif s < 172800 then
    return ('%dh ago'):format(math.floor(s / 3600))
  end
  return ('%dd ago'):format(math.floor(s / 86400))
end

--- One picker line for a session.
function M.format(s)
  return ('%s · %s · %d messages%s'):format(tostring(s.title), age(s.ageSeconds), s.messages or 0, s.running and ' · running' or '')
end

--- The workspace's sessions, most recent first: cb(list) or cb(nil, err).
function M.list(client, cb)
  compat.request(client, protocol.SESSIONS, { limit = 100 }, function(err, res)
    if err or type(res) ~= 'table' then
      cb(nil, err and err.message or 'no result')
      return
    end
    cb(res.sessions or {})
  end)
end

-- Writes a recorded session into the answer buffer, as a run would have.
local function render(st, h)
  ui.separator(st)
  for _, t in ipairs(h.turns or {}) do
    if t.role == 'user' then
      ui.prompt(st, t.text or '')
    else
      for _, c in ipairs(t.toolCalls or {}) do
        ui.tool_result(st, { id = c.id, name = c.name, arguments = c.arguments, result = c.result, isError = c.isError })
      end
      if t.text and t.text ~= '' then
        ui.text(st, t.text)
      end
    end
  end
end

--- Continues session id in this tab: the next prompt goes to it.
function M.resume(client, id)
  local st = session.state()
  if st.running then
    notify('a run is going on in this tab; :AgentCancel stops it', vim.log.levels.WARN)
    return
  end
  local function go(sid)
    compat.request(client, protocol.SESSION_HISTORY, { sessionId = sid }, function(err, h)
      if err or type(h) ~= 'table' then
        notify('cannot resume ' .. sid .. ': ' .. tostring(err and err.message), vim.log.levels.ERROR)
        return
      end
      st.id, st.client_id, st.context = sid, client.id, nil
      session.register(st)
      ui.show(st)
      render(st, h)
      notify(('resumed "%s"; the next :AgentPrompt continues it'):format(tostring(h.title)))
      vim.api.nvim_exec_autocmds('User', { pattern = 'AgentLspResumed', modeline = false })
    end)
  end
  if id and id ~= '' then
    go(id)
    return
  end
  M.list(client, function(list, err)
    if not list then
      notify('agent/sessions failed: ' .. tostring(err), vim.log.levels.ERROR)
    elseif #list == 0 then
      notify('no recorded session in this workspace')
    else
      go(list[1].id)
    end
  end)
end

--- A picker over the sessions; the chosen one is resumed.
function M.pick(client)
  M.list(client, function(list, err)
    if not list then
      notify('agent/sessions failed: ' .. tostring(err), vim.log.levels.ERROR)
      return
    end
    if #list == 0 then
      notify('no recorded session in this workspace')
      return
    end
    vim.ui.select(list, { prompt = 'Agent sessions', kind = 'agent_lsp.sessions', format_item = M.format }, function(s)
      if s then
        M.resume(client, s.id)
      end
    end)
  end)
end

return M
