package crosslingual

// The cases: everyday memories of three assistants (a household's, a
// developer's, a health coach's), half in Chinese and half in English, with
// distractors that share a question's words without answering it, and
// questions of the four kinds.

// Memory is one stored memory: its agent, a key the questions name it by,
// and its text.
type Memory struct {
	Agent, Key, Text string
}

// Question is one question and the key of the memory that answers it.
type Question struct {
	Kind  Kind
	Agent string
	Text  string
	Want  string
}

// Memories are the stored memories; keys starting with "x" are
// distractors.
var Memories = []Memory{
	{"home", "daughter-school", "用户的女儿在市第三中学读初二，数学成绩很好。"},
	{"home", "cat-feeding", "家里的猫叫团子，每天早上七点要喂一次猫粮。"},
	{"home", "allergy", "用户对花生过敏，点外卖时要避开含坚果的菜。"},
	{"home", "swimming", "用户每周六上午去游泳馆游泳一个小时。"},
	{"home", "father-surgery", "用户的父亲住在杭州，下个月要做膝盖手术。"},
	{"home", "tap-leak", "厨房的水龙头漏水，已经约了维修工周四来修。"},
	{"home", "car", "The user's car is a blue Toyota that needs new tyres before winter."},
	{"home", "wife-job", "The user's wife works as a nurse at the city hospital."},
	{"home", "japan-trip", "The family plans to visit Japan in October for two weeks."},
	{"home", "guitar", "The user is learning to play the guitar on Sunday evenings."},
	{"home", "rent", "The apartment rent is paid on the first day of every month."},
	{"home", "son-food", "The user's son hates vegetables but loves fish."},
	{"home", "x-daughter-art", "用户的女儿喜欢画画，周末去少年宫上美术课。"},
	{"home", "x-pool-closed", "游泳馆周一闭馆维护。"},
	{"home", "x-parking", "用户的车停在小区地下车库。"},
	{"home", "x-wife-garden", "用户的妻子喜欢种花。"},
	{"home", "x-daughter-bike", "The user's daughter wants a new bicycle for her birthday."},
	{"home", "x-kitchen-paint", "The kitchen was repainted white last spring."},
	{"home", "x-internet", "家里的宽带是电信的，每月一百元。"},
	{"home", "x-balcony", "阳台上种了几盆多肉植物。"},
	{"home", "x-mother-call", "用户每周日晚上给母亲打电话。"},
	{"home", "x-laundry", "洗衣机放在卫生间里，周末统一洗衣服。"},
	{"home", "x-bookclub", "用户参加了一个读书会，每月读一本小说。"},
	{"home", "x-neighbour-dog", "The neighbour's dog barks every night around midnight."},
	{"home", "x-insurance", "The home insurance renews in May."},
	{"home", "x-wifi", "The wifi password is written on the back of the router."},
	{"home", "x-piano", "The daughter takes piano lessons on Friday afternoons."},
	{"home", "x-groceries", "Groceries are delivered every Thursday morning."},

	{"work", "database", "项目的数据库用的是PostgreSQL，部署在阿里云上。"},
	{"work", "standup", "每周三下午两点开团队例会。"},
	{"work", "backend-go", "用户负责后端接口开发，主要写Go语言。"},
	{"work", "release-approval", "生产环境的发布需要经理审批。"},
	{"work", "leave-wedding", "用户下周请假去参加婚礼。"},
	{"work", "ci", "The team uses GitHub Actions for continuous integration."},
	{"work", "manager", "The user's manager is called Linda and she is based in London."},
	{"work", "review-time", "Code reviews must be done within one working day."},
	{"work", "dark-mode", "The user prefers dark mode in every editor."},
	{"work", "holidays", "The office is closed on public holidays."},
	{"work", "x-backup", "数据库的备份每天凌晨三点自动运行。"},
	{"work", "x-team-dinner", "团队上个月聚餐去了火锅店。"},
	{"work", "x-meeting-room", "The team meeting room is on the third floor."},
	{"work", "x-laptop", "公司给用户配了一台十六寸的笔记本电脑。"},
	{"work", "x-commute", "用户每天坐地铁上班，单程四十分钟。"},
	{"work", "x-lunch", "午饭一般在公司楼下的食堂吃。"},
	{"work", "x-oncall", "用户这个月轮到值班，手机要保持开机。"},
	{"work", "x-training", "下个月有一次关于云安全的培训。"},
	{"work", "x-vpn", "The VPN has to be on to reach the staging servers."},
	{"work", "x-jira", "Bugs are tracked in Jira under the project key PAY."},
	{"work", "x-intern", "A new intern named Tom joins the team in July."},
	{"work", "x-monitor", "The user asked for a second monitor last week."},
	{"work", "x-docs", "API documentation lives in the wiki."},
	{"work", "x-coffee-machine", "The coffee machine on the fourth floor is broken."},

	{"health", "sleep", "用户每天晚上十一点睡觉，早上六点半起床。"},
	{"health", "blood-pressure", "用户有高血压，每天早上吃一片降压药。"},
	{"health", "weight", "用户正在减肥，目标是三个月瘦五公斤。"},
	{"health", "dentist", "用户的牙医在下周二下午预约了洗牙。"},
	{"health", "spicy", "用户不吃辣，胃不太好。"},
	{"health", "steps", "The user walks ten thousand steps every day."},
	{"health", "water", "The user drinks two litres of water a day."},
	{"health", "flu-shot", "The user had a flu shot in September."},
	{"health", "salt", "The user's doctor advised cutting down on salt."},
	{"health", "meditation", "The user meditates for fifteen minutes before work."},
	{"health", "x-neighbour-bp", "用户的邻居也有高血压。"},
	{"health", "x-dentist-office", "The dentist's office is next to the pharmacy."},
	{"health", "x-morning-run", "用户的朋友每天早上去公园跑步。"},
	{"health", "x-glasses", "用户近视六百度，平时戴隐形眼镜。"},
	{"health", "x-yoga", "用户的妻子每周二晚上去练瑜伽。"},
	{"health", "x-vitamins", "用户冬天会补充维生素D。"},
	{"health", "x-checkup", "用户去年十二月做了一次全面体检。"},
	{"health", "x-coffee", "用户每天下午喝一杯美式咖啡。"},
	{"health", "x-back-pain", "The user sometimes has lower back pain after long flights."},
	{"health", "x-gym", "The gym membership expires at the end of the year."},
	{"health", "x-bike", "The user cycles to the market on weekends."},
	{"health", "x-fruit", "The user eats an apple every morning."},
	{"health", "x-sunscreen", "The user always wears sunscreen in summer."},
}

// Questions are the questions, by kind.
var Questions = []Question{
	{Control, "home", "用户的女儿在哪个中学读书？", "daughter-school"},
	{Control, "home", "猫每天什么时候喂猫粮？", "cat-feeding"},
	{Control, "home", "用户对什么过敏？", "allergy"},
	{Control, "home", "周四谁来修水龙头？", "tap-leak"},
	{Control, "work", "数据库部署在哪里？", "database"},
	{Control, "work", "团队例会是周几？", "standup"},
	{Control, "work", "生产环境发布要谁审批？", "release-approval"},
	{Control, "health", "用户每天几点睡觉？", "sleep"},
	{Control, "health", "用户吃什么降压药？", "blood-pressure"},
	{Control, "health", "用户减肥的目标是多少？", "weight"},

	{Paraphrase, "home", "他家闺女念的是哪所学校？", "daughter-school"},
	{Paraphrase, "home", "宠物一般几点吃东西？", "cat-feeding"},
	{Paraphrase, "home", "哪种零食他绝对不能吃？", "allergy"},
	{Paraphrase, "home", "周末他做什么运动？", "swimming"},
	{Paraphrase, "home", "他爸爸的腿有什么毛病？", "father-surgery"},
	{Paraphrase, "home", "家里什么东西在滴水？", "tap-leak"},
	{Paraphrase, "work", "他编程时最常使用什么？", "backend-go"},
	{Paraphrase, "work", "上线新版本必须由谁批准？", "release-approval"},
	{Paraphrase, "work", "他什么时候休假？", "leave-wedding"},
	{Paraphrase, "health", "他通常几点上床休息？", "sleep"},
	{Paraphrase, "health", "他需要长期服用哪类药物？", "blood-pressure"},
	{Paraphrase, "health", "他想把体重降到多少？", "weight"},
	{Paraphrase, "health", "他看牙的时间定在哪天？", "dentist"},
	{Paraphrase, "health", "他能不能吃麻辣的菜？", "spicy"},

	{ZhEn, "home", "他的车是什么牌子的？", "car"},
	{ZhEn, "home", "他妻子做什么工作？", "wife-job"},
	{ZhEn, "home", "全家十月份去哪里旅行？", "japan-trip"},
	{ZhEn, "home", "他在学什么乐器？", "guitar"},
	{ZhEn, "home", "房租什么时候交？", "rent"},
	{ZhEn, "home", "儿子不爱吃什么？", "son-food"},
	{ZhEn, "work", "团队用什么做持续集成？", "ci"},
	{ZhEn, "work", "他的经理叫什么名字？", "manager"},
	{ZhEn, "work", "代码审查要多久完成？", "review-time"},
	{ZhEn, "health", "他每天走多少步？", "steps"},
	{ZhEn, "health", "他一天喝多少水？", "water"},
	{ZhEn, "health", "他什么时候打了流感疫苗？", "flu-shot"},
	{ZhEn, "health", "医生建议他少吃什么？", "salt"},
	{ZhEn, "health", "他上班前冥想多久？", "meditation"},

	{EnZh, "home", "Which school does his daughter attend?", "daughter-school"},
	{EnZh, "home", "When does the cat get fed?", "cat-feeding"},
	{EnZh, "home", "What is the user allergic to?", "allergy"},
	{EnZh, "home", "What sport does the user do on Saturdays?", "swimming"},
	{EnZh, "home", "Who is having knee surgery?", "father-surgery"},
	{EnZh, "home", "What is broken in the kitchen?", "tap-leak"},
	{EnZh, "work", "Where is the database hosted?", "database"},
	{EnZh, "work", "When is the weekly team meeting?", "standup"},
	{EnZh, "work", "Who must approve a production release?", "release-approval"},
	{EnZh, "work", "Why is the user taking time off next week?", "leave-wedding"},
	{EnZh, "health", "What time does the user go to bed?", "sleep"},
	{EnZh, "health", "What medicine does the user take for blood pressure?", "blood-pressure"},
	{EnZh, "health", "How much weight does the user want to lose?", "weight"},
	{EnZh, "health", "When is the dentist appointment?", "dentist"},
	{EnZh, "health", "Does the user eat spicy food?", "spicy"},
}
