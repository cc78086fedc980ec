-- The chat commands of round 2: :AgentAsk, :AgentEdit, :AgentSessions,
-- :AgentResume, :AgentModel. Called by init.commands with its def().
return function(def, M)
  local compat = require('agent_lsp.compat')
  local function client(bufnr)
    local c = compat.clients(M.NAME, bufnr)[1] or compat.clients(M.NAME)[1]
    if not c then
      vim.notify('agent-lsp: no agent_lsp client is running (see :checkhealth agent_lsp)', vim.log.levels.ERROR)
    end
    return c
  end
  local function range_opts(a)
    local o = { bufnr = vim.api.nvim_get_current_buf() }
    if a.range and a.range > 0 then
      o.line1, o.line2 = a.line1, a.line2
    end
    return o
  end
  def('AgentAsk', function(a)
    local o = range_opts(a)
    require('agent_lsp.compose').open(function(text)
      M.prompt(text, o)
    end, a.args)
  end, { nargs = '*', range = true, desc = 'Ask the agent in a multi-line prompt (<C-s> sends)' })
  def('AgentEdit', function(a)
    local bufnr = vim.api.nvim_get_current_buf()
    local c = client(bufnr)
    if c then
      local l1, l2 = a.line1, a.line2
      local range = M.make_range(bufnr, l1, l2, nil, c.offset_encoding or 'utf-16')
      require('agent_lsp.compose').edit(c, bufnr, range, a.args)
    end
  end, { nargs = '*', range = true, desc = 'Edit the range (default: this line) with the agent' })
  def('AgentSessions', function()
    local c = client()
    if c then
      require('agent_lsp.history').pick(c)
    end
  end, { nargs = 0, desc = "Pick one of the workspace's agent sessions" })
  def('AgentResume', function(a)
    local c = client()
    if c then
      require('agent_lsp.history').resume(c, a.args)
    end
  end, { nargs = '?', desc = 'Continue a session (default: the most recent) in this tab' })
  def('AgentModel', function(a)
    local c = client()
    if c then
      require('agent_lsp.models').pick(c, a.args)
    end
  end, { nargs = '?', desc = 'Pick the model of the next prompts (remembered per workspace)' })
end
