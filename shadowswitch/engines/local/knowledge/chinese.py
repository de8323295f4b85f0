"""The Chinese the argument extraction reads: numerals, date words, negations, function characters,
and the English names of well-known places.

Like `english`, these are language, not an optional table: every request with Chinese text in it
is read with them. Place names are here, not in `places`, because they are a translation: the
English name is offered only to a parameter that asks for English (arguments/chinese.py), and
from it `places` adds the state or country as it does for any English name.
"""

from __future__ import annotations

DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
UNITS = {"十": 10, "百": 100, "千": 1000}
BIG_UNITS = {"万": 10_000, "亿": 100_000_000}
UPPER_DIGITS = {
    "壹": 1,
    "贰": 2,
    "叁": 3,
    "肆": 4,
    "伍": 5,
    "陆": 6,
    "柒": 7,
    "捌": 8,
    "玖": 9,
    "拾": 10,
    "佰": 100,
    "仟": 1000,
}

# "一" in these words is no number ("查一下", "一起", "统一").
NOT_NUMBERS = (
    "一下",
    "一些",
    "一起",
    "一直",
    "一定",
    "一样",
    "一般",
    "一点",
    "统一",
    "万一",
    "一切",
    "一旦",
    "唯一",
    "一边",
    "一会",
)

# Relative days: offset from today.
DAYS = {
    "大前天": -3,
    "前天": -2,
    "昨天": -1,
    "昨日": -1,
    "今天": 0,
    "今日": 0,
    "明天": 1,
    "明日": 1,
    "后天": 2,
    "大后天": 3,
}
WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
WEEKS = {"上": -1, "这": 0, "本": 0, "下": 1}  # 上周一, 这周五, 下周一 (周 / 星期 / 礼拜)
# Parts of the day that move an hour after noon: 晚上八点 → 20:00, 下午1:45 → 13:45.
AFTERNOON = ("下午", "晚上", "傍晚", "夜里", "今晚", "明晚")
MORNING = ("上午", "早上", "凌晨", "早晨", "清晨", "中午")

# A flag turned off: 不要早餐, 不用加冰, 没有宠物, 无糖, 去掉香菜.
NEGATIONS = ("不需要", "不要", "不用", "不含", "不带", "不加", "不想", "没有", "别", "无", "免", "去掉", "不")
AFFIRMATIONS = ("需要", "要", "含", "带", "加", "包括", "包含", "有")

# Characters that end a value written in Chinese: particles, pronouns, the verbs of asking.
BREAKS = frozenset(
    "不没有无别的了吗呢吧啊呀嘛我你他她它们请帮给把在和与及或是从到为对让用跟向被就都也还再又很太最更能会要想可以个只这那哪什么怎么"
)
VERBS = (
    "帮我",
    "请问",
    "请",
    "查一下",
    "查询",
    "查找",
    "查",
    "搜索",
    "搜一下",
    "搜",
    "找一下",
    "找",
    "告诉我",
    "看看",
    "看一下",
    "打开",
    "播放",
    "放一首",
    "订",
    "预订",
    "预约",
    "发送",
    "发",
    "获取",
    "列出",
    "显示",
    "给我",
    "创建",
    "新建",
    "删除",
    "设置",
)

# The English names of places a Chinese request names in Chinese.
PLACES = {
    "北京": "Beijing",
    "上海": "Shanghai",
    "广州": "Guangzhou",
    "深圳": "Shenzhen",
    "杭州": "Hangzhou",
    "成都": "Chengdu",
    "重庆": "Chongqing",
    "天津": "Tianjin",
    "南京": "Nanjing",
    "武汉": "Wuhan",
    "西安": "Xi'an",
    "苏州": "Suzhou",
    "厦门": "Xiamen",
    "青岛": "Qingdao",
    "长沙": "Changsha",
    "香港": "Hong Kong",
    "澳门": "Macau",
    "台北": "Taipei",
    "东京": "Tokyo",
    "大阪": "Osaka",
    "京都": "Kyoto",
    "首尔": "Seoul",
    "新加坡": "Singapore",
    "曼谷": "Bangkok",
    "清迈": "Chiang Mai",
    "吉隆坡": "Kuala Lumpur",
    "河内": "Hanoi",
    "孟买": "Mumbai",
    "新德里": "New Delhi",
    "金奈": "Chennai",
    "迪拜": "Dubai",
    "特拉维夫": "Tel Aviv",
    "伦敦": "London",
    "巴黎": "Paris",
    "柏林": "Berlin",
    "罗马": "Rome",
    "马德里": "Madrid",
    "巴塞罗那": "Barcelona",
    "阿姆斯特丹": "Amsterdam",
    "莫斯科": "Moscow",
    "悉尼": "Sydney",
    "墨尔本": "Melbourne",
    "多伦多": "Toronto",
    "温哥华": "Vancouver",
    "纽约": "New York",
    "洛杉矶": "Los Angeles",
    "旧金山": "San Francisco",
    "三藩市": "San Francisco",
    "芝加哥": "Chicago",
    "西雅图": "Seattle",
    "波士顿": "Boston",
    "华盛顿": "Washington",
    "费城": "Philadelphia",
    "奥斯汀": "Austin",
    "休斯顿": "Houston",
    "达拉斯": "Dallas",
    "迈阿密": "Miami",
    "拉斯维加斯": "Las Vegas",
    "圣地亚哥": "San Diego",
    "圣何塞": "San Jose",
    "丹佛": "Denver",
    "亚特兰大": "Atlanta",
    "山景城": "Mountain View",
    "伯克利": "Berkeley",
    "奥克兰": "Oakland",
    "阿纳海姆": "Anaheim",
    "中国": "China",
    "美国": "United States",
    "英国": "United Kingdom",
    "日本": "Japan",
    "韩国": "South Korea",
    "法国": "France",
    "德国": "Germany",
    "加拿大": "Canada",
    "澳大利亚": "Australia",
    "泰国": "Thailand",
    "加州": "CA",
    "德州": "TX",
    "纽约州": "NY",
    "华盛顿州": "WA",
    "佛罗里达": "FL",
}

# Yes and no, as a flag's answer.
YES = ("是", "对", "好", "要", "需要", "开启", "打开", "启用")
NO = ("否", "不是", "不对", "不要", "不需要", "关闭", "禁用")
