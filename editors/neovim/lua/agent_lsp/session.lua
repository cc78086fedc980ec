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

--- One line for a statusline: "agent: running" and the like.
function M.status()
  local st = tabs[vim.api.nvim_get_current_tabpage()]
  if not st then
    return ''
  end
  if st.running and (st.waiting or 0) > 0 then
    return 'agent: waiting for your approval'
  end
  if st.running then
    return 'agent: running'
  end
  if st.last_end then
    return 'agent: ' .. tostring(st.last_end.reason)
  end
  return ''
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
