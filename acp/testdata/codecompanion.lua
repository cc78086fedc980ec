-- `agent-lsp acp` driven by CodeCompanion.nvim's own ACP client
-- (codecompanion.acp: its Connection and PromptBuilder, its fs/* handlers),
-- in headless Neovim. acp/codecompanion_test.go runs it with
--   CC_PLUGINS (a dir holding codecompanion.nvim and plenary.nvim checkouts),
--   CC_AGENT (agent-lsp), CC_MODEL (the scripted model's URL), CC_WS (the
--   workspace, Neovim's cwd) and CC_OUT (the result file).
-- It opens main.go and changes it without saving, then sends one prompt and
-- answers the permission request allow_once; it writes what it saw to CC_OUT
-- as JSON and exits 0, or exits 1 with the error.
local out = os.getenv("CC_OUT")
local function finish(code, res)
  local f = io.open(out, "w")
  f:write(vim.json.encode(res))
  f:close()
  vim.cmd("cquit " .. code)
end
-- Hangs end the run (a raw timer: scheduled callbacks may be blocked).
vim.uv.new_timer():start(60000, 0, function()
  io.stderr:write("codecompanion.lua: timed out\n")
  os.exit(2)
end)

local ok, err = pcall(function()
  local plugins = os.getenv("CC_PLUGINS")
  vim.opt.rtp:prepend(plugins .. "/plenary")
  vim.opt.rtp:prepend(plugins .. "/codecompanion")
  -- Debian's LuaJIT is built with Lua 5.2 compatibility: coroutine.running()
  -- on the main thread is not nil, and CodeCompanion would try to yield
  -- there. Report the main thread as nil, as Neovim's bundled LuaJIT does.
  local running = coroutine.running
  coroutine.running = function()
    local co, main = running()
    if main then
      return nil
    end
    return co
  end

  local ws = os.getenv("CC_WS")
  vim.cmd("cd " .. vim.fn.fnameescape(ws))
  vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/main.go"))

  require("codecompanion").setup({
    adapters = { acp = {
      agent_lsp = function()
        return require("codecompanion.adapters").extend("gemini_cli", {
          name = "agent_lsp", formatted_name = "agent-lsp",
          commands = { default = { os.getenv("CC_AGENT"), "acp", "--base-url", os.getenv("CC_MODEL"), "--model", "scripted" } },
          defaults = { mcpServers = {}, timeout = 20000 },
        })
      end,
    } },
    interactions = { chat = { adapter = "agent_lsp" } },
  })
  local adapter = require("codecompanion.adapters").resolve("agent_lsp")
  local conn = require("codecompanion.acp").new({ adapter = adapter })
  assert(conn:connect_and_initialize(), "connect_and_initialize failed")

  local res = { session = conn.session_id, text = "", tools = {}, updates = {}, permissions = {}, writes = {} }
  local done = false
  conn:session_prompt({ { role = "user", content = "fix main.go", _meta = { sent = false } } })
    :on_message_chunk(function(t) res.text = res.text .. t end)
    :on_tool_call(function(c) table.insert(res.tools, { id = c.toolCallId, kind = c.kind, title = c.title, status = c.status }) end)
    :on_tool_update(function(u)
      local diff = false
      for _, b in ipairs(u.content or {}) do
        if b.type == "diff" then diff = true end
      end
      table.insert(res.updates, { id = u.toolCallId, status = u.status, diff = diff })
    end)
    :on_permission_request(function(req)
      table.insert(res.permissions, { id = req.tool_call.toolCallId, title = req.tool_call.title })
      for _, o in ipairs(req.options) do
        if o.kind == "allow_once" then return req.respond(o.optionId) end
      end
      req.respond(nil, true)
    end)
    :on_write_text_file(function(info) table.insert(res.writes, info.path) end)
    :on_complete(function(stop) res.stop = stop; done = true end)
    :on_error(function(e) res.error = e; done = true end)
    :send()
  assert(vim.wait(30000, function() return done end, 20), "no answer in 30 s")
  res.buffer = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr(ws .. "/main.go"), 0, -1, false), "\n")
  res.modified = vim.bo[vim.fn.bufnr(ws .. "/main.go")].modified
  conn:disconnect()
  finish(0, res)
end)
if not ok then
  io.stderr:write("codecompanion.lua: " .. tostring(err) .. "\n")
  finish(1, { error = tostring(err) })
end
