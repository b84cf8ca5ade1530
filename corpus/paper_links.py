"""Links that stand for a paper (arXiv, DOI, a PDF, the ACL Anthology, OpenReview, USENIX, ACM, IEEE and
other proceedings sites) and the identity of the paper behind one: two links to one paper (its arXiv
abstract and PDF, ``doi.org`` and ``dl.acm.org/doi``) give one identity."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePosixPath
from urllib.parse import parse_qs, unquote, urlsplit

#: Hosts whose pages are papers (publishers, proceedings and preprint servers), matched as the host or a
#: subdomain of it; USENIX only for its presentation pages and files.
PAPER_HOSTS = (
    "arxiv.org",
    "doi.org",
    "dl.acm.org",
    "ieeexplore.ieee.org",
    "aclanthology.org",
    "aclweb.org",
    "openreview.net",
    "proceedings.neurips.cc",
    "papers.nips.cc",
    "neurips.cc",
    "proceedings.mlr.press",
    "openaccess.thecvf.com",
    "link.springer.com",
    "sciencedirect.com",
    "ojs.aaai.org",
    "ijcai.org",
    "vldb.org",
    "jmlr.org",
    "biorxiv.org",
    "medrxiv.org",
    "semanticscholar.org",
    "mlsys.org",
    "nature.com",
    "researchgate.net",
    "paperswithcode.com",
    "ecva.net",
    "aaai.org",
    "ndss-symposium.org",
    "cv-foundation.org",
)
#: An arXiv identifier in a link to arXiv or to a site that shows arXiv papers by their id (Hugging Face
#: papers, alphaXiv, ar5iv).
_ARXIV_RE = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)|huggingface\.co/papers|alphaxiv\.org/(?:abs|overview)|ar5iv\.org/(?:abs|html))"
    r"/([a-z-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})(?:v\d+)?",
    re.I,
)
#: A DOI in a link: doi.org, or a publisher's ``/doi/`` path (the ACM Digital Library, Science, SIAM, Wiley …).
_DOI_RE = re.compile(r"(?:doi\.org/|/doi/(?:abs/|pdf/|full/|epdf/|book/)?)(10\.\d{4,9}/[^\s?#]+)", re.I)
#: An ACL Anthology paper id in its URL (``aclanthology.org/N19-1423/``, ``aclweb.org/anthology/N19-1423.pdf``,
#: ``aclanthology.org/2023.acl-long.1``) or in its DOI (``10.18653/v1/N19-1423``): the Anthology's
#: papers carry DOIs of the form 10.18653/v1/<Anthology ID> (https://aclanthology.org/info/ids/).
_ACL_RE = re.compile(
    r"(?:aclanthology\.org/|aclweb\.org/anthology/|10\.18653/v1/)([A-Z]\d{2}-\d{4}|\d{4}\.[a-z\d-]+\.\d+)", re.I
)
#: A bare arXiv identifier (``2312.12456``, ``arXiv:2312.12456v2``, ``cs/0501001``).
ARXIV_ID_RE = re.compile(r"^(?:arxiv:\s*)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$", re.I)


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


@lru_cache(maxsize=1 << 16)
def is_paper_link(url: str) -> bool:
    """True when ``url`` (http/https) points at one paper: an arXiv abstract/PDF (or its page on Hugging
    Face papers, alphaXiv, ar5iv), a DOI (doi.org, a publisher's ``/doi/`` path; not a proceedings' table
    of contents), an IEEE Xplore document, an OpenReview
    forum, a USENIX presentation page or file, an IEEE Computer Society article, a page on another host of :data:`PAPER_HOSTS`, or any
    ``.pdf`` (not a whole proceedings volume)."""
    if not re.match(r"^https?://", url or "", re.I):
        return False
    host = _host(url).removeprefix("www.")
    parts = urlsplit(url)
    path = parts.path.lower()
    if path.endswith(".pdf"):
        return "proceedings" not in path.rsplit("/", 1)[-1]  # a whole proceedings volume is no one paper
    if host == "usenix.org" or host.endswith(".usenix.org"):
        # an older conference's paper page is named by the paper's title ("/conference/osdi-04/mapreduce-
        # simplified-data-processing-large-clusters"); its other pages by a word or three ("call-for-papers")
        titled = re.fullmatch(r"/conference/[^/]+/([a-z0-9]+(?:-[a-z0-9]+){3,})/?", path)
        return "/presentation/" in path or "/system/files/" in path or titled is not None
    if host in ("arxiv.org", "huggingface.co", "alphaxiv.org", "ar5iv.org"):
        return bool(_ARXIV_RE.search(url))
    if host in ("dl.acm.org", "doi.org") or _DOI_RE.search(url):
        return bool(_DOI_RE.search(url)) and "/proceedings/" not in path and "/toc/" not in path
    if host == "computer.org" or host.endswith(".computer.org"):  # the IEEE Computer Society library
        return "/proceedings-article/" in path
    if host == "ieeexplore.ieee.org":
        return "/document/" in path
    if host == "openreview.net":
        return "id=" in parts.query
    if _PUBLICATION_PAGE_RE.search(path) and host not in ("github.com", "gitlab.com"):
        return True  # a lab's page of one publication ("research.google/pubs/<slug>", ".../publication/<slug>")
    return len(path.strip("/")) > 1 and any(host == h or host.endswith("." + h) for h in PAPER_HOSTS)


#: The path of one publication's page on a research lab's or institution's site: a ``publication`` or
#: ``pubs`` folder followed by the paper's own slug or id (Microsoft Research, Google Research, Meta AI,
#: Amazon Science, university groups): an id ("pub62", "pub46351.html") or a title's slug of four words or
#: more, not the folder itself nor a series' page ("publications/computer-communication-review").
_PUBLICATION_PAGE_RE = re.compile(
    r"/(?:publications?|pubs)/(?:[a-z]*\d[\w-]*|[a-z\d]+(?:[-_][a-z\d]+){3,})(?:\.html?|/)?$"
)


#: Query parameters in which a redirecting link carries its destination (Zhihu's
#: ``link.zhihu.com/?target=…``, Google's ``/url?q=…``, Facebook's ``l.php?u=…``, Outlook safe links'
#: ``?url=…``, a CSDN or Juejin ``?target=…``).
_REDIRECT_PARAMS = ("target", "url", "q", "u", "dest", "destination", "redirect", "to")


def unwrap_redirect(url: str) -> str:
    """The destination of a redirecting link (a web address carried, percent-encoded, in one of the
    :data:`_REDIRECT_PARAMS` of its query: ``https://link.zhihu.com/?target=https%3A//arxiv.org/abs/1706.03762``
    → ``https://arxiv.org/abs/1706.03762``); any other link as it is."""
    if "?" not in url or "=" not in url:
        return url
    try:
        query = parse_qs(urlsplit(url).query)
    except ValueError:
        return url
    for k in _REDIRECT_PARAMS:
        for v in query.get(k, []):
            dest = unquote(v).strip()
            if re.match(r"^https?:/{1,2}\w", dest, re.I):
                return re.sub(r"^(https?:)/(?!/)", r"\1//", dest, flags=re.I)  # Zhihu writes "https%3A//…"
    return url


#: A web address written out in text: with its scheme, or without one on a host of papers
#: ("arxiv.org/abs/2305.14314", "www.usenix.org/conference/…", as notes copy an address bar).
_WRITTEN_URL_RE = re.compile(
    r"(?<![(<\[\w/.@-])(?:https?://[^\s)>\]）]+|(?:www\.)?(?:"
    + "|".join(re.escape(h) for h in (*PAPER_HOSTS, "usenix.org"))
    + r")/[^\s)>\]）]+)",
    re.IGNORECASE,
)


def written_urls(text: str) -> list[str]:
    """The web addresses written out in ``text`` (not a link's target), each with its scheme and
    unwrapped from a redirecting link (:func:`unwrap_redirect`): ``"论文地址：arxiv.org/abs/2305.14314"``
    → ``["https://arxiv.org/abs/2305.14314"]``. A stop or full-width stop after an address is no part of it."""
    out = []
    for m in _WRITTEN_URL_RE.finditer(text):
        u = m.group(0).rstrip(".,;:。，；")
        out.append(unwrap_redirect(u if re.match(r"https?://", u, re.I) else f"https://{u}"))
    return out


def written_url_spans(text: str) -> list[tuple[int, int, str]]:
    """:func:`written_urls` with where each stands in ``text``: ``(start, end, url)``."""
    out = []
    for m in _WRITTEN_URL_RE.finditer(text):
        u = m.group(0).rstrip(".,;:。，；")
        url = unwrap_redirect(u if re.match(r"https?://", u, re.I) else f"https://{u}")
        out.append((m.start(), m.start() + len(u), url))
    return out


@lru_cache(maxsize=1 << 16)
def paper_id(url: str) -> str:
    """Identity of the paper a link points at: ``"arxiv:2312.12456"`` (abstract, PDF or HTML, any
    version), ``"acl:n19-1423"`` (an ACL Anthology page or PDF, or its DOI), ``"doi:10.1145/…"`` (doi.org
    or the ACM Digital Library, lower-cased), ``"openreview:ID"``, else the URL without scheme, ``www.``,
    query of tracking, fragment and trailing slash."""
    m = _ARXIV_RE.search(url)
    if m:
        return f"arxiv:{m.group(1).lower()}"
    m = _ACL_RE.search(url)
    if m:
        return f"acl:{m.group(1).lower()}"
    m = _DOI_RE.search(url)
    if m:
        return f"doi:{m.group(1).rstrip('/.').lower()}"
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    if host == "openreview.net":
        ids = parse_qs(parts.query).get("id")
        if ids:
            return f"openreview:{ids[0]}"
    return f"{host}{parts.path.rstrip('/')}".lower()


def arxiv_url(value: str) -> str | None:
    """``https://arxiv.org/abs/ID`` for a bare arXiv identifier or an arXiv URL; None otherwise."""
    v = str(value).strip()
    if _ARXIV_RE.search(v):
        return v
    m = ARXIV_ID_RE.match(v)
    return f"https://arxiv.org/abs/{m.group(1)}" if m else None


def doi_url(value: str) -> str | None:
    """``https://doi.org/10.…`` for a DOI (bare, ``doi:``-prefixed or a DOI URL); None otherwise."""
    v = str(value).strip()
    m = re.search(r"(10\.\d{4,9}/\S+)", v)
    return f"https://doi.org/{m.group(1)}" if m else None


def arxiv_year(url: str) -> int | None:
    """Year an arXiv identifier of the new scheme was issued (``2312.12456`` → 2023); None otherwise."""
    m = _ARXIV_RE.search(url)
    if not m or "/" in m.group(1):
        return None
    return 2000 + int(m.group(1)[:2])


#: Words of a link text that say what kind of copy of a paper it is, not which paper ("PDF", "full text").
_COPY_WORDS = frozenset(
    "pdf paper doi abs abstract html version full text official publisher journal conference proceedings "
    "preprint page link camera ready extended".split()
)


def names_its_site(label: str, url: str) -> bool:
    """True when a link's text names where the link goes or what copy it is, not a paper: the site
    ("USENIX", "ACM DL", "arXiv", "OpenReview", "IEEE Xplore", "ACL Anthology" — each word of three or
    more letters found in the host name), a kind of copy ("PDF", "publisher version") or the URL
    itself."""
    low = label.strip().lower()
    if low.startswith(("http://", "https://")):
        return True
    host = _host(url).removeprefix("www.")
    words = re.findall(r"[a-z]{3,}", low)
    return bool(words) and all(w in host or w in _COPY_WORDS for w in words)


def one_paper(links: list[tuple[str, str]]) -> str | None:
    """The one paper that ``links`` (``(text, url)`` of one line, paper links only) give, as its first
    link: the links share one identity (:func:`paper_id`), or each names its site and they lie on
    different hosts — one paper's publisher page and preprint side by side (``[USENIX](…) ·
    [arXiv](…)``; not when every one is an address written out). None when the links name several
    papers (two arXiv ids, two titles) or none."""
    if not links:
        return None
    if len({paper_id(u) for _, u in links}) == 1:
        return links[0][1]
    hosts = [_host(u).removeprefix("www.") for _, u in links]
    # each labelled by its site; two addresses written out side by side say nothing of being one paper
    labelled = not all(label.strip().lower().startswith(("http://", "https://")) for label, _ in links)
    if labelled and len(set(hosts)) == len(hosts) and all(names_its_site(label, u) for label, u in links):
        return links[0][1]
    return None


#: An arXiv identifier that marks a title: before it ("[1512.03385] Title", "1905.11946 — Title") or after it
#: in brackets ("Title (arXiv:1810.04805)").
ID_MARK_RE = re.compile(
    r"^\[?(?:arxiv:?\s*)?\d{4}\.\d{4,5}(?:v\d+)?\]?\s*(?:[—–:|-]\s*)?(?=\S)"
    r"|\s*[(\[](?:arxiv:?\s*)?\d{4}\.\d{4,5}(?:v\d+)?[)\]]\s*$",
    re.IGNORECASE,
)
_FILE_ID_RE = re.compile(r"(?:arxiv[-_.]?)?(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE)


def named_arxiv_id(source: str, heading: str) -> str | None:
    """The arXiv identifier a note is named by — its file name (``2005.12872v3.md``) or its title
    heading's mark (:data:`ID_MARK_RE`) — or None."""
    stem = PurePosixPath(source.split("#", 1)[0]).stem
    m = _FILE_ID_RE.fullmatch(stem)
    if m:
        return m.group(1)
    mark = ID_MARK_RE.search(heading.strip())
    found = re.search(r"\d{4}\.\d{4,5}", mark.group(0)) if mark else None
    return found.group(0) if found else None
