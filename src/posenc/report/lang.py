"""The report page's fixed text in English and Chinese: two tables with the same keys.

The page is written in English (:data:`DEFAULT_LANG`); every piece of fixed text on it (headings, table headers, the
legend, captions, the verdict names) is an element that names its key here, and the page's own script swaps the
text for the other language's when the reader switches (``?lang=zh`` in the URL). What a run measured or a claim
says in words (reasons, setups, criteria) stays as written; a claim's title switches with its record's
:attr:`~posenc.report.claim.Claim.title_zh`.

A text may hold ``{name}`` placeholders, filled from the element's ``data-p-name`` attribute (a value, escaped) or
its ``data-k-name`` attribute (another key of the same table: a verdict name, a run's kind); both languages of a key
use the same placeholders. The texts are markup written here (``<b>``, ``<code>``), never anything a run produced.
"""

from __future__ import annotations

import re

from posenc.errors import PosencError

__all__ = ["LANGS", "DEFAULT_LANG", "TEXT", "PLACEHOLDER", "placeholders", "fill", "status_key"]

#: the languages the page speaks, and the one it is written in
LANGS = ("en", "zh")
DEFAULT_LANG = "en"

#: a placeholder in a text: ``{name}``, lower-case letters only (it names a ``data-p-name`` attribute)
PLACEHOLDER = re.compile(r"\{([a-z]+)\}")

_LEGEND_EN = (
    "Every sampled number carries its 95% interval in brackets (bootstrap over windows, words, sequences or query "
    "positions; Wilson for accuracies over trials; Student-t over training seeds, on a log scale for step counts "
    "and ratios), inside what the number can take (accuracies and shares in [0, 1], counts and ratios above 0); "
    "exact numbers stand alone. An interval rests on at least {units} independent units: a number from fewer is "
    "shown without one and decides nothing. Verdicts, from the intervals and thresholds fixed before the run: "
    "<b>{supported}</b> (every interval clears its bar), <b>{qualified}</b> (true only under the named condition), "
    "<b>{refuted}</b> (the intervals lie on the other side), <b>{inconclusive}</b> (an interval straddles a bar, a "
    "number has too few units for an interval, or the model never learned the task in distribution; the reason "
    "says how much more data would settle it), <b>{untestable}</b> (the test cannot tell the cases apart here), "
    "<b>{undecided}</b> (quick mode cannot decide it by construction; the command that decides it is shown), "
    "<b>{notrun}</b> (not run in this report: past its time budget; the command and its time are shown), "
    "<b>{failed}</b> (the experiment raised; the error is shown). The last two columns of the table are the "
    "verdicts of the last committed full and extended runs; &ne; marks where one differs from this run's.")

_LEGEND_ZH = (
    "每个抽样得到的数字都在方括号中附有 95% 区间（对窗口、词、序列或查询位置做 bootstrap；多次试验的准确率用 Wilson "
    "区间；跨训练种子用 Student-t，步数和比值在对数尺度上计算），区间限定在该数字可取的范围内（准确率和占比在 [0, 1] "
    "之内，计数和比值大于 0）；精确计算的数字不带区间。一个区间至少基于 {units} 个独立单元：单元更少的数字不带区间，"
    "也不决定结论。结论由区间和运行前就固定的阈值得出：<b>{supported}</b>（每个区间都越过其阈值），"
    "<b>{qualified}</b>（只在指明的条件下成立），<b>{refuted}</b>（区间落在阈值的另一侧），<b>{inconclusive}</b>"
    "（有区间跨过阈值、某个数字的单元太少而没有区间，或模型在训练分布内从未学会该任务；理由中说明还要多少数据才能判定），"
    "<b>{untestable}</b>（此处的检验无法区分两种情形），<b>{undecided}</b>（快速模式按设计无法判定；页面给出能判定它的"
    "命令），<b>{notrun}</b>（本报告没有运行：超出时间预算；页面给出命令及其用时），<b>{failed}</b>（实验抛出了异常；"
    "页面给出错误）。表格的最后两列是最近一次提交的完整运行和扩展运行的结论；&ne; 标出与本次运行结论不同之处。")

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "page.title": "posenc evidence report",
        "switch.label": "Language",
        "h1": "Positional encodings: what holds up?",
        "lede": "Claims about positional encodings, from four tutorials (tutorials 000-003) and from the papers, "
                "each tested by an experiment run with <code>posenc</code>. Every verdict below is computed from the "
                "measured numbers by the claim's criterion; the baseline or published figure stands beside each "
                "number.",
        "explore.link": "Open the explorer",
        "explore.note": "every figure of the four documents live in the browser, computed as posenc computes them; "
                        "each panel links back to its claim's verdict here",
        "meta.quick": "quick mode: small sweeps, short contexts and few seeds; numbers marked QUICK are indicative, "
                      "run <code>posenc report</code> without <code>--quick</code> for the full experiments",
        "meta.claims": "{n} claims",
        "meta.generated": "generated {created} in {seconds} s ({computed} computed, {stored} read from the results "
                          "store)",
        "where.cpu": "device cpu, float32",
        "where.split": "lab and extend experiments on {device} in {dtype}, the others on cpu in float32",
        "where.raydevice": "each Ray worker's own device (auto)",
        "where.ray": "; every experiment and lab run a task on the Ray cluster at {address}",
        "legend": _LEGEND_EN,
        "refs.heading": "Reference runs",
        "refs.column.one": "Last {kind} column: the {describe}, <code>{file}</code>; {differs} verdict differs from "
                           "this run's (&ne;).",
        "refs.column.many": "Last {kind} column: the {describe}, <code>{file}</code>; {differs} verdicts differ from "
                            "this run's (&ne;).",
        "refs.followup.one": "In the sections of the {claims} claim it ran: the {describe}, <code>{file}</code>; "
                             "{differs} verdict differs from this run's.",
        "refs.followup.many": "In the sections of the {claims} claims it ran: the {describe}, <code>{file}</code>; "
                              "{differs} verdicts differ from this run's.",
        "kind.full": "full",
        "kind.extended": "extended",
        "kind.more-seeds": "more-seeds",
        "th.number": "#",
        "th.claim": "Claim",
        "th.source": "Source",
        "th.verdict.run": "Verdict (this run)",
        "th.full": "Last full run",
        "th.extended": "Last extended run",
        "group.tutorial": "Claims of the four documents (tutorials 000-003)",
        "group.literature": "Claims from the literature (papers the documents point to or that test them)",
        "cell.notinrun": "not in that run",
        "title.differs": "differs from this run's verdict",
        "note.run": "run: {command}",
        "timings.summary": "Time per experiment",
        "th.experiment": "Experiment",
        "th.time": "Time",
        "timings.stored": "read from the store (time of the run that computed it)",
        "timings.computed": "computed now",
        "dt.source": "Source",
        "dt.experiment": "Experiment",
        "dt.setup": "Setup",
        "dt.criterion": "Criterion",
        "origin.tutorial": "one of the four documents",
        "origin.literature": "the literature",
        "role.test": "test",
        "role.condition": "condition",
        "role.requires": "requires",
        "role.headroom": "headroom",
        "role.power": "power",
        "test.basis": "(threshold from: {basis})",
        "side.null": "measured {measured} · null {null}",
        "side.nonull": "measured {measured} · no null: {reason}",
        "side.measured": "measured {measured}",
        "dt.null": "Null",
        "dt.scope": "Rests on",
        "verdict.scope": "on {scope}",
        "requires.basis": "(otherwise {otherwise}; from: {basis})",
        "th.quantity": "Quantity",
        "th.measured": "Measured",
        "th.anchor": "Baseline / anchor",
        "th.anchoris": "Anchor is",
        "badge.quick": "measured in quick mode: fewer samples than the full report",
        "failed.text": "the experiment did not produce numbers, so no verdict.",
        "verdict.runit": "Run it:",
        "choice.question": "<b>Does the verdict depend on the {name}?</b> The headline rests on {headline}: {why}.",
        "th.verdict": "Verdict",
        "choice.headline": " (headline)",
        "refline.run": "last {kind} run",
        "refline.none": ": none committed",
        "refline.notin": " this claim was not in it",
        "refline.differs": "differs from this run",
        "refline.same": "(the same)",
        "figure.alt": "figure for {title}",
        "mode.quick": "quick mode",
        "mode.full": "full mode",
        "how.stored": "read from the results store{provenance}",
        "how.computed": "computed in {seconds} s{provenance}",
        "footer": "Written by <code>posenc report</code>. Every number is also in <code>report.json</code> next to "
                  "this page.",
        "status.supported": "supported",
        "status.qualified": "qualified",
        "status.refuted": "refuted",
        "status.inconclusive": "inconclusive",
        "status.not testable": "not testable",
        "status.not decided in quick mode": "not decided in quick mode",
        "status.not run": "not run",
        "status.failed": "failed",
    },
    "zh": {
        "page.title": "posenc 证据报告",
        "switch.label": "语言",
        "h1": "位置编码：哪些说法站得住？",
        "lede": "关于位置编码的说法，来自四篇教程（教程 000-003）和论文，每一条都由 <code>posenc</code> 运行的实验来检验。"
                "下面每个结论都是按该说法的判据由测得的数字算出的；每个数字旁边都列出基线或论文发表的数值。",
        "explore.link": "打开交互式图解",
        "explore.note": "四篇文档中的每张图都能在浏览器里实时操作，计算与 posenc 完全一致；每个面板都链接回本页中对应说法的结论",
        "meta.quick": "快速模式：扫描范围小、上下文短、种子少；标有 QUICK 的数字仅供参考，不加 <code>--quick</code> "
                      "运行 <code>posenc report</code> 可得到完整实验",
        "meta.claims": "{n} 条说法",
        "meta.generated": "生成于 {created}，用时 {seconds} 秒（{computed} 条本次计算，{stored} 条读自结果库）",
        "where.cpu": "设备 cpu，float32",
        "where.split": "lab 与 extend 实验在 {device} 上以 {dtype} 计算，其余在 cpu 上以 float32 计算",
        "where.raydevice": "每个 Ray 工作进程自己的设备（auto）",
        "where.ray": "；每个实验和每次 lab 运行都是 {address} 处 Ray 集群上的一个任务",
        "legend": _LEGEND_ZH,
        "refs.heading": "参考运行",
        "refs.column.one": "“最近{kind}运行”一列：{describe}，<code>{file}</code>；有 {differs} 个结论与本次运行不同"
                           "（&ne;）。",
        "refs.column.many": "“最近{kind}运行”一列：{describe}，<code>{file}</code>；有 {differs} 个结论与本次运行不同"
                            "（&ne;）。",
        "refs.followup.one": "在它运行过的 {claims} 条说法的小节中：{describe}，<code>{file}</code>；有 {differs} "
                             "个结论与本次运行不同。",
        "refs.followup.many": "在它运行过的 {claims} 条说法的小节中：{describe}，<code>{file}</code>；有 {differs} "
                              "个结论与本次运行不同。",
        "kind.full": "完整",
        "kind.extended": "扩展",
        "kind.more-seeds": "多种子",
        "th.number": "#",
        "th.claim": "说法",
        "th.source": "出处",
        "th.verdict.run": "结论（本次运行）",
        "th.full": "最近完整运行",
        "th.extended": "最近扩展运行",
        "group.tutorial": "四篇文档中的说法（教程 000-003）",
        "group.literature": "文献中的说法（文档引用的论文，或检验过它们的论文）",
        "cell.notinrun": "不在该次运行中",
        "title.differs": "与本次运行的结论不同",
        "note.run": "运行：{command}",
        "timings.summary": "各实验用时",
        "th.experiment": "实验",
        "th.time": "用时",
        "timings.stored": "读自结果库（计算它的那次运行的用时）",
        "timings.computed": "本次计算",
        "dt.source": "出处",
        "dt.experiment": "实验",
        "dt.setup": "设置",
        "dt.criterion": "判据",
        "origin.tutorial": "四篇文档之一",
        "origin.literature": "文献",
        "role.test": "检验",
        "role.condition": "条件",
        "role.requires": "前提",
        "role.headroom": "余量",
        "role.power": "检验力",
        "test.basis": "（阈值来源：{basis}）",
        "side.null": "测得 {measured} · 零基线 {null}",
        "side.nonull": "测得 {measured} · 无零基线：{reason}",
        "side.measured": "测得 {measured}",
        "dt.null": "零基线",
        "dt.scope": "依据",
        "verdict.scope": "（基于 {scope}）",
        "requires.basis": "（否则为{otherwise}；来源：{basis}）",
        "th.quantity": "量",
        "th.measured": "测得值",
        "th.anchor": "基线 / 参照值",
        "th.anchoris": "参照值是",
        "badge.quick": "在快速模式下测得：样本比完整报告少",
        "failed.text": "实验没有产生数字，因此没有结论。",
        "verdict.runit": "运行它：",
        "choice.question": "<b>结论是否取决于 {name}？</b>主结论基于 {headline}：{why}。",
        "th.verdict": "结论",
        "choice.headline": "（主结论）",
        "refline.run": "最近{kind}运行",
        "refline.none": "：没有已提交的运行",
        "refline.notin": "这条说法不在其中",
        "refline.differs": "与本次运行不同",
        "refline.same": "（相同）",
        "figure.alt": "{title} 的图",
        "mode.quick": "快速模式",
        "mode.full": "完整模式",
        "how.stored": "读自结果库{provenance}",
        "how.computed": "用时 {seconds} 秒计算{provenance}",
        "footer": "由 <code>posenc report</code> 生成。所有数字也保存在本页旁边的 <code>report.json</code> 中。",
        "status.supported": "支持",
        "status.qualified": "有条件支持",
        "status.refuted": "被推翻",
        "status.inconclusive": "无定论",
        "status.not testable": "无法检验",
        "status.not decided in quick mode": "快速模式无法判定",
        "status.not run": "未运行",
        "status.failed": "运行出错",
    },
}


def status_key(status: str) -> str:
    """The key of a verdict's name: ``status.supported``, ``status.not run``, ..."""
    return f"status.{status}"


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders a text holds."""
    return set(PLACEHOLDER.findall(text))


def fill(lang: str, key: str, values: dict[str, str]) -> str:
    """The text of ``key`` in ``lang`` with its placeholders replaced by ``values`` (already markup-safe), as the
    page's script fills it; a placeholder without a value is an error naming the key."""
    if lang not in TEXT:
        raise PosencError(f"no page text in language {lang!r}; the page speaks {', '.join(LANGS)}")
    if key not in TEXT[lang]:
        raise PosencError(f"no page text {key!r} in {lang}; add it to both tables of posenc.report.lang")
    text = TEXT[lang][key]
    missing = placeholders(text) - set(values)
    if missing:
        raise PosencError(f"page text {key!r} needs {', '.join(sorted(missing))}; got {', '.join(sorted(values))}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)
