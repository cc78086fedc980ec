-- Sessions: one per tab, continued by follow-up prompts until :AgentNew.
local M = {}

local tabs = {} -- tabpage handle -> session state
local by_id = {} -- sessionId -> session state
local counter = 0

--- A fresh session id (the server accepts ids chosen by the client, so a
--- run can be cancelled before its result names it).
function M.new_id()
  counter = counter + 1
  return ('nvim-%d-%d-%d'):format(vim.fn.getpid(), os.time(), counter)
end

--- The session state of the current tab: { id, running, bufnr, ... }.
function M.state(tab)
  tab = tab or vim.api.nvim_get_current_tabpage()
  local st = tabs[tab]
  if not st then
    st = { tab = tab, runs = 0 }
    tabs[tab] = st
  end
  return st
end

-- 32768 -> "32k", 1536 -> "1.5k".
local function k(n)
  if n >= 10240 then
    return ('%dk'):format(math.floor(n / 1024 + 0.5))
  elseif n >= 1024 then
    return ('%.1fk'):format(n / 1024)
  end
  return tostring(n)
end

--- How full the model's context window is, from the last `context` event
--- of st's session: "12% of 32k context", or "4.1k tokens of context"
--- when the window is not known; '' before the first request.
function M.gauge(st)
  local c = st and st.context
  if type(c) ~= 'table' or type(c.tokens) ~= 'number' then
    return ''
  end
  if type(c.window) == 'number' and c.window > 0 then
    return ('%d%% of %s context'):format(math.floor(100 * c.tokens / c.window + 0.5), k(c.window))
  end
  return k(c.tokens) .. ' tokens of context'
end

--- One line for a statusline: "agent: running · 12% of 32k context" and
--- the like.
function M.status()
  local st = tabs[vim.api.nvim_get_current_tabpage()]
  if not st then
    return ''
  end
  local s
  if st.running and (st.waiting or 0) > 0 then
    s = 'agent: waiting for your approval'
  elseif st.running then
    s = 'agent: running'
  elseif (st.side_waiting or 0) > 0 then
    s = 'agent: waiting for your approval'
  elseif (st.side_runs or 0) > 0 then
    s = 'agent: ' .. tostring(st.side_origin or 'edit') .. ' running'
  elseif st.last_end then
    s = 'agent: ' .. tostring(st.last_end.reason)
  else
    return ''
  end
  local g = M.gauge(st)
  return g == '' and s or (s .. ' · ' .. g)
end

--- A run the server started under a session of its own (Fix with agent,
--- Rewrite, :AgentEdit): it shows in the current tab's answer buffer as a
--- short turn, without becoming the tab's conversation. Returns its
--- record { id, side = true, state = the tab's state, origin, running }.
function M.side(ev)
  local st = M.state()
  local rec = { id = ev.sessionId, side = true, state = st, origin = ev.origin, running = true }
  by_id[ev.sessionId] = rec
  st.side_runs = (st.side_runs or 0) + 1
  st.side_origin = ev.origin
  return rec
end

--- Drops a side run's record once it ended.
function M.forget(id)
  local rec = by_id[id]
  if rec and rec.side then
    by_id[id] = nil
    rec.state.side_runs = math.max(0, (rec.state.side_runs or 1) - 1)
  end
end

--- The session state holding sessionId id, or nil.
function M.by_id(id)
  return by_id[id]
end

--- Makes st the owner of its session id's events.
function M.register(st)
  by_id[st.id] = st
end

--- Every session state.
function M.all()
  return tabs
end

return M
